package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractSeekTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Seek contract suite against Tarn. */
public class TarnContractSeekIT extends AbstractContractSeekTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
