# Environment for bin/tarn; sourced by every command. Values already set in the environment win,
# so "TARN_HEAP=4g bin/tarn start" works without editing this file.

# The JDK (17 or later). Default: $JAVA_HOME if set, else the first 'java' on PATH.
# export JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64

# Maximum Java heap of every Tarn JVM, passed as -Xmx (e.g. 2g). Default: empty = the JVM's default
# (a quarter of RAM). DRAM datanodes keep their blocks in memory-mapped files under
# tarn.datanode.dram.path, not on the heap, so they need little heap.
# export TARN_HEAP=2g

# Extra JVM options for every Tarn JVM: GC flags, -Dtarn.key=value configuration overrides
# (between tarn-site.conf and -D options on the command line), -Dlogback.configurationFile=...
# Daemons run with -XX:+UseG1GC -XX:G1HeapRegionSize=1m before these, which a GC flag here overrides.
# export TARN_OPTS="-XX:+UseParallelGC"

# Where 'tarn start' keeps pid files and the cluster's start arguments. Default: $TARN_HOME/run.
# export TARN_RUN_DIR=/var/run/tarn

# Where 'tarn start' writes the daemons' logs (namenode.log, datanode-<i>.log). Default: $TARN_RUN_DIR/logs.
# export TARN_LOG_DIR=/var/log/tarn

# Log level of the daemons (tarn namenode/datanode/start): TRACE, DEBUG, INFO, WARN, ERROR. Default: INFO.
# Client commands (fs, iobench, status, conf) log at WARN to standard error, or at TARN_CLIENT_LOG_LEVEL.
# export TARN_LOG_LEVEL=INFO
# export TARN_CLIENT_LOG_LEVEL=WARN

# Seconds 'tarn start' waits for the namenode to answer and the datanodes to register (default 60),
# and 'tarn stop' waits after SIGTERM before it sends SIGKILL (default 15).
# export TARN_START_TIMEOUT=60
# export TARN_STOP_TIMEOUT=15
