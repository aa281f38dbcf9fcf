package io.tarn.client;

/** {@link AbstractFileSystemOperationsTest} on 4 namenodes sharing the namespace. */
class FileSystemOperationsOnFourNamenodesTest extends AbstractFileSystemOperationsTest {
    FileSystemOperationsOnFourNamenodesTest() {
        super(4);
    }
}
