package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractConcatTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's concat contract suite: skipped as a whole, since {@code contract/tarn.xml} declares no concat. */
public class TarnContractConcatIT extends AbstractContractConcatTest {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
