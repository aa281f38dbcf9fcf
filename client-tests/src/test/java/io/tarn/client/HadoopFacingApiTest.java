package io.tarn.client;

/** {@link AbstractHadoopFacingApiTest} with one namenode. */
class HadoopFacingApiTest extends AbstractHadoopFacingApiTest {
    HadoopFacingApiTest() {
        super(1);
    }
}
