package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractMkdirTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's Mkdir contract suite against Tarn. */
public class TarnContractMkdirIT extends AbstractContractMkdirTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
