package io.tarn.hadoop.fc;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileContextPermissionBase;

/** Hadoop's FileContext permission suite against Tarn: modes under the umask, setPermission, setOwner. */
public class TarnFileContextPermissionIT extends FileContextPermissionBase {

    @Override
    protected FileContext getFileContext() throws Exception {
        return TarnTestCluster.get().newFileContext();
    }
}
