package io.tarn.client;

/** {@link AbstractHadoopFacingApiTest} on 2 namenodes sharing the namespace. */
class HadoopFacingApiOnTwoNamenodesTest extends AbstractHadoopFacingApiTest {
    HadoopFacingApiOnTwoNamenodesTest() {
        super(2);
    }
}
