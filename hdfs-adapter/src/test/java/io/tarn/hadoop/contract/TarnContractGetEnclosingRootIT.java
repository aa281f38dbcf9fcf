package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractGetEnclosingRoot;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/** Hadoop's getEnclosingRoot contract suite against Tarn (one root: the file system's). */
public class TarnContractGetEnclosingRootIT extends AbstractContractGetEnclosingRoot {
    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
