package io.tarn.client;

/** {@link AbstractFileSystemOperationsTest} on 2 namenodes sharing the namespace. */
class FileSystemOperationsOnTwoNamenodesTest extends AbstractFileSystemOperationsTest {
    FileSystemOperationsOnTwoNamenodesTest() {
        super(2);
    }
}
