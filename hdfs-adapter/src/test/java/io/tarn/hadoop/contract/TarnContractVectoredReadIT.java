package io.tarn.hadoop.contract;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.contract.AbstractContractVectoredReadTest;
import org.apache.hadoop.fs.contract.AbstractFSContract;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Hadoop's vectored read contract suite against Tarn, with heap and direct buffers. */
@ParameterizedClass(name = "buffer-{0}")
@MethodSource("params")
public class TarnContractVectoredReadIT extends AbstractContractVectoredReadTest {

    public TarnContractVectoredReadIT(String bufferType) {
        super(bufferType);
    }

    @Override
    protected AbstractFSContract createContract(Configuration conf) {
        return new TarnContract(conf);
    }
}
