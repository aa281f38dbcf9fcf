package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetFileStatusTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's GetFileStatus contract suite against Tarn. */
public class TarnContractGetFileStatusIT extends AbstractContractGetFileStatusTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
