package io.tarn.client;

/** {@link AbstractHadoopFacingApiTest} on 4 namenodes sharing the namespace. */
class HadoopFacingApiOnFourNamenodesTest extends AbstractHadoopFacingApiTest {
    HadoopFacingApiOnFourNamenodesTest() {
        super(4);
    }
}
