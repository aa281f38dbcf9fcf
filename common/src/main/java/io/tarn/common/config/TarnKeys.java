package io.tarn.common.config;

import java.util.List;

/**
 * Every configuration key Tarn understands, with its default, unit and meaning, grouped by the
 * process that reads it ({@link #GROUPS}): the cluster's, every process's RPC, the namenode's,
 * the datanode's and the client's.
 *
 * <p>{@code conf/tarn-site.conf} documents the same keys for operators; a test keeps the two in step.
 */
public final class TarnKeys {
    private TarnKeys() {
    }

    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long GIB = 1024 * MIB;
    private static final long HOUR_MS = 3_600_000;

    // ---- cluster-wide ----

    public static final ConfigKey<String> NAMENODE_ADDRESS = ConfigKey.string("tarn.namenode.address",
            "localhost:9060", "host:port where clients and datanodes reach the namenode; with several namenodes, "
                    + "all of them, comma-separated, in partition order (the first is partition 0). A partition "
                    + "served by a replicated group of namenodes lists its members separated by '|' "
                    + "(host1:9060|host2:9060|host3:9060), in member order: 3 or 5 of them. A client needs only one "
                    + "partition: it learns the others from it.", TarnKeys::checkHostPorts);

    public static final ConfigKey<Long> BLOCK_SIZE = ConfigKey.bytes("tarn.blocksize", MIB, 4 * KIB, GIB,
            "Size of one block; a power of two that divides the datanodes' region size.");

    public static final ConfigKey<TransportKind> TRANSPORT = ConfigKey.choice("tarn.transport", TransportKind.AUTO,
            TransportKind.class,
            "auto | tcp | rdma. auto uses RDMA only where a device, libdisni and the JVM flags are present, "
                    + "TCP otherwise (and logs why); rdma fails at start-up with the reason when RDMA is unavailable.");

    public static final ConfigKey<Integer> REPLICATION_DEFAULT = ConfigKey.integerOf("tarn.replication.default", 1,
            List.of(1, 3), "copies", "1 | 3: replication of a new file whose creator asks for none and whose "
                    + "directories set no default (tarn fs -setrep on a directory): 1 keeps one copy of each block "
                    + "on one datanode; 3 keeps each block in a group of three datanodes and needs at least three "
                    + "live ones. The namenodes apply it (give them all the same value). This build does not serve "
                    + "replicated blocks yet: writing to a file of replication 3 fails with an error saying so.");

    // ---- RPC ----

    public static final ConfigKey<Long> RPC_TIMEOUT = ConfigKey.millis("tarn.rpc.timeout", 30_000, 1, HOUR_MS,
            "How long a call waits for its response before failing with a timeout error.");

    public static final ConfigKey<Long> RPC_CONNECT_TIMEOUT = ConfigKey.millis("tarn.rpc.connect.timeout", 5_000,
            1, HOUR_MS, "How long opening a connection may take.");

    public static final ConfigKey<Long> RPC_MAX_FRAME = ConfigKey.bytes("tarn.rpc.max.frame", 16 * MIB, 64 * KIB,
            GIB, "Largest frame accepted on a connection; a larger one closes the connection as malformed.");

    public static final ConfigKey<Integer> RPC_IO_THREADS = ConfigKey.integer("tarn.rpc.io.threads", 0, 0, 256,
            "threads", "Netty event-loop threads per server or client; 0 means one per core.");

    public static final ConfigKey<Integer> RPC_MAX_INFLIGHT = ConfigKey.integer("tarn.rpc.max.inflight", 1024, 1,
            1 << 20, "calls", "Most calls one connection keeps in flight; further calls wait for a slot. A thread "
                    + "that may block waits for one inside the call. A call made on an I/O thread (such as the "
                    + "callback of an answer that makes the next call) never blocks that thread: it is queued on "
                    + "the connection, holding its encoded request, and sent when a slot frees, in the order such "
                    + "calls were made; the queue has no bound of its own. Either way, a call that gets no slot "
                    + "within tarn.rpc.timeout fails with a timeout error.");

    public static final ConfigKey<Integer> RPC_SERVER_MAX_CONNECTIONS = ConfigKey.integer(
            "tarn.rpc.server.max.connections", 0, 0, 1 << 20, "connections", "Most connections one server keeps "
                    + "open; a connection beyond it is answered SERVER_BUSY and closed at once. 0: nine tenths of "
                    + "the process's open-file limit (ulimit -n), so a flood of connections cannot take the "
                    + "descriptors the server needs.");

    public static final ConfigKey<Integer> RPC_SERVER_MAX_INFLIGHT = ConfigKey.integer(
            "tarn.rpc.server.max.inflight", 4096, 1, 1 << 20, "calls", "Most unanswered calls a server takes "
                    + "from one connection; it stops reading that connection until answers bring it below half.");

    public static final ConfigKey<Long> RPC_SERVER_MAX_PARTIAL_BYTES = ConfigKey.bytes(
            "tarn.rpc.server.max.partial.bytes", 256 * MIB, MIB, 64 * GIB, "Most bytes one server holds in frames "
                    + "that have not arrived whole, over all its connections. A frame over 64k reserves its whole "
                    + "length when its first bytes arrive; while there is no room its connection is not read (other "
                    + "connections go on), and one that waits tarn.rpc.idle.timeout is answered SERVER_BUSY and "
                    + "closed. Payloads placed straight into a datanode's memory (plain TCP) are not counted. So "
                    + "authenticated peers that start large frames and never finish them hold at most this much.");

    public static final ConfigKey<Long> RPC_IDLE_TIMEOUT = ConfigKey.millis("tarn.rpc.idle.timeout", 600_000, 1_000,
            24 * HOUR_MS, "A server closes a connection that sent nothing for this long; clients close their own "
                    + "idle connections (nothing in flight) after half of it, and open them again when needed.");

    public static final ConfigKey<Long> RPC_SEND_BUFFER = ConfigKey.bytesOrZero("tarn.rpc.send.buffer", 0, 64 * KIB,
            256 * MIB, "Socket send buffer (SO_SNDBUF) of TCP connections between different hosts; 0 leaves it to "
                    + "the kernel's autotuning, which sizes it to the path's round trip. Linux doubles the value set "
                    + "and caps it at net.core.wmem_max. Below 64k a sender waits for delayed acknowledgements.");

    public static final ConfigKey<Long> RPC_SEND_BUFFER_LOCAL = ConfigKey.bytesOrZero("tarn.rpc.send.buffer.local",
            512 * KIB, 64 * KIB, 256 * MIB, "Socket send buffer (SO_SNDBUF) of TCP connections whose two ends are "
                    + "on one host (loopback, or an address of this host's own interfaces): a co-located client on "
                    + "the TCP path, daemons sharing a machine. 0 leaves it to the kernel's autotuning, which grows it "
                    + "to several MiB although a loopback round trip takes microseconds; a smaller buffer keeps what "
                    + "the receiver has not read yet within the CPU caches. The best value depends on the CPU's "
                    + "cache sizes: compare with bin/tarn-compare.");

    public static final ConfigKey<LeakDetection> RPC_LEAK_DETECTION = ConfigKey.choice("tarn.rpc.leak.detection",
            LeakDetection.OFF, LeakDetection.class, "off | simple | advanced | paranoid: Netty's buffer leak detector "
                    + "for the Netty copy Tarn runs on, set for the whole JVM each time a transport starts. off "
                    + "tracks no buffer; the others track a sample (simple, Netty's own default) or all of them, "
                    + "at a CPU cost on every call, to report buffers never released. An explicit "
                    + "-Dio.netty.leakDetection.level on the JVM wins over this key.");

    // ---- namenode ----

    public static final ConfigKey<String> NAMENODE_BIND = ConfigKey.string("tarn.namenode.bind", "",
            "Address the namenode listens on (host:port); empty means the host and port of tarn.namenode.address.",
            v -> v.isEmpty() ? null : checkHostPort(v));

    public static final ConfigKey<Integer> NAMENODE_PARTITION = ConfigKey.integer("tarn.namenode.partition", 0, 0,
            255, "", "Which entry of tarn.namenode.address this namenode is (0 for the first); set per namenode "
                    + "(tarn namenode --partition I).");

    public static final ConfigKey<String> NAMENODE_MEMBERS = ConfigKey.string("tarn.namenode.members", "",
            "For a client reaching a replicated namenode group through one of its members (a tarn://host:port "
                    + "URI names one): every member, separated by '|' (host1:9060|host2:9060|host3:9060), so that "
                    + "the client follows the group's leader even when that member is down. Used when it lists "
                    + "the member tarn.namenode.address names; tarn fs sets it from tarn.namenode.address.",
            TarnKeys::checkMembers);

    public static final ConfigKey<Integer> NAMENODE_MEMBER = ConfigKey.integer("tarn.namenode.member", 0, 0, 4, "",
            "Which member of its partition's group (the '|'-separated entry of tarn.namenode.address) this namenode "
                    + "is, 0 for the first; set per namenode of a replicated group (tarn namenode --member I).");

    public static final ConfigKey<Integer> NAMENODE_POLL = ConfigKey.integer("tarn.namenode.poll", 50, 0, 10_000,
            "µs", "How long each of the namenode's I/O threads goes on polling its connections after its last "
                    + "work before it sleeps; 0 sleeps at once. A call arriving meanwhile is read without waking a "
                    + "sleeping thread, which on VMs whose idle vCPUs halt also means waking a vCPU. Costs up to one "
                    + "core per I/O thread while calls keep coming less than this far apart; an idle namenode "
                    + "sleeps. Needs native epoll (Linux).");

    public static final ConfigKey<NamespaceJournalMode> NAMENODE_JOURNAL = ConfigKey.choice("tarn.namenode.journal",
            NamespaceJournalMode.DISK, NamespaceJournalMode.class, "disk | none. disk: every namespace mutation "
                    + "(create, close, blocks, rename, delete, attributes, datanodes, block groups) is written to a "
                    + "journal in tarn.namenode.journal.dir and forced to disk, many mutations sharing one force, "
                    + "before it is acknowledged; a restarted namenode replays it and serves the same files, whose "
                    + "datanodes register again, block groups included. With several namenodes each journals its "
                    + "own files, namenode 0 every directory change before it sends it to the others, and a "
                    + "restarted namenode takes namenode 0's directories; a file moved between them is recorded "
                    + "at both, and a move a crash interrupted is settled when they are back. none: the namespace "
                    + "lives in memory only and a restarted namenode starts empty (for ephemeral scratch data).");

    public static final ConfigKey<String> NAMENODE_JOURNAL_DIR = ConfigKey.string("tarn.namenode.journal.dir", "",
            "Directory on disk (not tmpfs) of the namenode's journal with tarn.namenode.journal = disk: segment "
                    + "files edits-<first record>.log, checkpoint-<record>.image, journal.meta (whose namespace, and "
                    + "the block token key) and in_use.lock. With several namenodes, each uses a subdirectory "
                    + "namenode-<partition> of it; a member of a replicated group, member-<m> (its group's journal "
                    + "in group-<partition> there). Empty: ${java.io.tmpdir}/tarn-namenode-<port> (this namenode's "
                    + "port; with port 0, a fresh temporary directory deleted when the namenode stops).",
            null);

    public static final ConfigKey<Long> NAMENODE_CHECKPOINT_INTERVAL = ConfigKey.millis(
            "tarn.namenode.checkpoint.interval", 3_600_000, 0, 7 * 24 * HOUR_MS, "With tarn.namenode.journal = disk: "
                    + "the namenode writes a checkpoint of its namespace this often when the journal holds records "
                    + "since the last one (0: only by tarn.namenode.checkpoint.records), in the background, "
                    + "without stopping lookups or changes, and deletes the journal segments it covers. A restart "
                    + "loads the newest checkpoint and replays only the journal after it.");

    public static final ConfigKey<Integer> NAMENODE_CHECKPOINT_RECORDS = ConfigKey.integer(
            "tarn.namenode.checkpoint.records", 1_000_000, 1_000, Integer.MAX_VALUE, "records", "With "
                    + "tarn.namenode.journal = disk: a checkpoint is also written once the journal holds this many "
                    + "records since the last one. Writing one rebuilds the namespace from the last checkpoint and "
                    + "the journal on a background thread, so it needs about as much heap again as the namespace "
                    + "while it runs.");

    public static final ConfigKey<Long> LEASE_TIMEOUT = ConfigKey.millis("tarn.namenode.lease.timeout", 60_000, 100,
            24 * HOUR_MS, "A writer that has not renewed its lease for this long loses it; its file is closed "
                    + "at the length the writer last reported stored (hsync, or when it asked for its last block).");

    public static final ConfigKey<Long> DATANODE_TIMEOUT = ConfigKey.millis("tarn.namenode.datanode.timeout", 10_000,
            100, HOUR_MS, "A datanode silent for this long is marked dead and left out of allocation.");

    public static final ConfigKey<String> NAMENODE_EXPIRE_DIRS = ConfigKey.string("tarn.namenode.expire.dirs", "",
            "Directories whose subdirectories expire: comma-separated directory=duration entries, such as "
                    + "/spark-shuffle=10m. The namenode (the first partition's, its group's leader) deletes a "
                    + "subdirectory, with everything below it, once it has not been modified for the duration: "
                    + "no entry created or deleted directly in it (with several namenodes, files count on the first "
                    + "one only) and its modification time not set. Applications "
                    + "that die leave nothing behind for long; live ones renew (the Spark shuffle plugin's driver "
                    + "sets its directory's time every spark.shuffle.tarn.app.renewInterval). Clients' clocks must "
                    + "be within a small part of the duration of the namenode's. Empty: nothing expires.",
            ExpiringDirectories::check);

    public static final ConfigKey<Boolean> NAMENODE_AUDIT = ConfigKey.bool("tarn.namenode.audit", true,
            "Write one line per client mutation (create, mkdirs, delete, rename, set attributes, append, set "
                    + "replication) to the logger tarn.audit: user, address, operation, paths and outcome, refusals "
                    + "included (docs/security.md).");

    public static final ConfigKey<Long> DATANODE_EXPIRY = ConfigKey.millis("tarn.namenode.datanode.expiry",
            3_600_000, 1_000, 30L * 24 * HOUR_MS, "A datanode dead for this long (and for longer than "
                    + "tarn.datanode.replace.after, so its block groups were moved first) is forgotten: no longer "
                    + "listed, its blocks lost for good, and if it comes back it registers as a new datanode. "
                    + "Counted again from a namenode restart.");

    public static final ConfigKey<Long> DATANODE_REPLACE_AFTER = ConfigKey.millis("tarn.datanode.replace.after",
            600_000, 1, 7L * 24 * HOUR_MS, "How long a datanode holding a member of a replicated block group may "
                    + "stay dead before the namenode replaces that member with a new one on another datanode, which "
                    + "copies the group's data from the others; a datanode that comes back without its data is "
                    + "replaced at once, and one that comes back with it before the group began the change cancels "
                    + "it. A member whose group stopped on a live datanode (its journal failed) is replaced after "
                    + "reporting it for as long. Shorter: repaired sooner, more copying after brief outages.");

    // ---- datanode ----

    public static final ConfigKey<String> DATANODE_BIND = ConfigKey.string("tarn.datanode.bind", "0.0.0.0:9070",
            "Address a datanode listens on (host:port); port 0 picks a free port.", TarnKeys::checkHostPort);

    public static final ConfigKey<String> DATANODE_HOSTNAME = ConfigKey.string("tarn.datanode.hostname", "",
            "Host name the datanode advertises to clients; empty means the bind host, or this machine's name "
                    + "when binding to all interfaces.", null);

    public static final ConfigKey<Long> HEARTBEAT_INTERVAL = ConfigKey.millis("tarn.datanode.heartbeat.interval",
            1_000, 10, HOUR_MS, "How often a datanode reports to the namenode.");

    public static final ConfigKey<Integer> STORAGE_CLASS = ConfigKey.integer("tarn.datanode.storage.class", 0, 0, 15,
            "class", "Storage class this datanode serves: 0 = DRAM, 1 = flash.");

    public static final ConfigKey<Long> DRAM_CAPACITY = ConfigKey.bytes("tarn.datanode.dram.capacity", GIB, 64 * KIB,
            1L << 50, "Memory a DRAM datanode offers; a multiple of the region size, and at least one region per "
                    + "namenode (region r serves namenode r mod N).");

    public static final ConfigKey<Long> DRAM_REGION_SIZE = ConfigKey.bytes("tarn.datanode.dram.region.size",
            256 * MIB, 64 * KIB, GIB, "Size of one memory region a DRAM datanode registers; a multiple of the "
                    + "block size.");

    public static final ConfigKey<String> DRAM_PATH = ConfigKey.string("tarn.datanode.dram.path", "/dev/shm/tarn",
            "Directory (tmpfs or a hugetlbfs mount) holding the DRAM datanode's region files; "
                    + "they survive a datanode restart, not a reboot. On hugetlbfs (2 MiB pages: reserve them "
                    + "with sysctl vm.nr_hugepages) the regions take whole huge pages, which makes copies into and "
                    + "out of them faster; tarn.datanode.dram.region.size must then be a multiple of 2m.", null);

    public static final ConfigKey<DramMode> DRAM_MODE = ConfigKey.choice("tarn.datanode.dram.mode", DramMode.AUTO,
            DramMode.class, "auto | mmap | direct. auto maps files under tarn.datanode.dram.path and falls back "
                    + "to direct memory when the path is not usable.");

    public static final ConfigKey<Boolean> DRAM_KEEP = ConfigKey.bool("tarn.datanode.dram.keep", false,
            "Keep the region files when the datanode stops cleanly, so a restarted datanode serves the same data; "
                    + "after a crash they are always kept. false frees the memory at shutdown.");

    public static final ConfigKey<Boolean> DRAM_PRETOUCH = ConfigKey.bool("tarn.datanode.dram.pretouch", true,
            "Touch every page of new region files at start-up, before registering, so writes never wait for the "
                    + "kernel to allocate pages and a mount too small fails at start rather than later. Start-up "
                    + "then takes longer in proportion to tarn.datanode.dram.capacity.");

    public static final ConfigKey<Boolean> DRAM_SHORTCIRCUIT = ConfigKey.bool("tarn.datanode.dram.shortcircuit", true,
            "Let clients on this host copy block data straight from and to the mapped region files (mmap mode "
                    + "only); every request is still checked here. The files are readable and writable by the "
                    + "datanode's user only, so clients running as another user use TCP.");

    // ---- security ----

    public static final ConfigKey<AuthenticationMode> SECURITY_AUTHENTICATION = ConfigKey.choice(
            "tarn.security.authentication", AuthenticationMode.NONE, AuthenticationMode.class,
            "none | secret. secret: every connection starts with a mutual HMAC-SHA-256 challenge-response over the "
                    + "key in tarn.security.secret.file, and a server serves nothing before it succeeds; servers "
                    + "and clients of a cluster must agree (see docs/security.md). A cluster of bin/tarn start "
                    + "authenticates (with a new cluster secret) unless this key is set.");

    public static final ConfigKey<String> SECURITY_SECRET_FILE = ConfigKey.string("tarn.security.secret.file", "",
            "The key file (made by 'tarn secret'): daemons need the cluster secret, clients the cluster secret, "
                    + "the client key or their user's key. Must be readable and writable by its owner only.",
            null);

    public static final ConfigKey<Long> SECURITY_AUTH_TIMEOUT = ConfigKey.millis("tarn.security.auth.timeout",
            10_000, 1, HOUR_MS, "A server closes a connection that has not authenticated within this time.");

    public static final ConfigKey<Boolean> SECURITY_TLS = ConfigKey.bool("tarn.security.tls", false,
            "true (or on): every connection is TLS (1.3 or 1.2), servers showing the certificate of "
                    + "tarn.security.tls.cert and clients checking it against tarn.security.tls.ca; all processes of a "
                    + "cluster must agree. Authentication (tarn.security.authentication) still runs inside it.");

    public static final ConfigKey<String> SECURITY_TLS_CERT = ConfigKey.string("tarn.security.tls.cert", "",
            "PEM file: this process's certificate (then any intermediate ones). Servers need one; a client "
                    + "needs one when servers ask for client certificates (tarn.security.tls.client.auth).", null);

    public static final ConfigKey<String> SECURITY_TLS_KEY = ConfigKey.string("tarn.security.tls.key", "",
            "PEM file: the private key of tarn.security.tls.cert (PKCS#8, unencrypted), readable and writable by "
                    + "its owner only.", null);

    public static final ConfigKey<String> SECURITY_TLS_CA = ConfigKey.string("tarn.security.tls.ca", "",
            "PEM file: the certificate authorities a peer's certificate must come from.", null);

    public static final ConfigKey<Boolean> SECURITY_TLS_CLIENT_AUTH = ConfigKey.bool("tarn.security.tls.client.auth",
            false, "Servers ask every client for a certificate from tarn.security.tls.ca and refuse one without "
                    + "(mutual TLS).");

    public static final ConfigKey<Boolean> SECURITY_PERMISSIONS = ConfigKey.bool("tarn.security.permissions", true,
            "true (or on): the namenode checks owner, group and mode on every operation as HDFS does (this needs "
                    + "tarn.security.authentication = secret, which proves who the caller is; without it nothing is "
                    + "checked). false (or off): modes are stored and shown but anyone may do anything.");

    public static final ConfigKey<String> SECURITY_SUPERUSERS = ConfigKey.string("tarn.security.superusers", "",
            "Users, separated by commas, who pass every permission check, besides the user that runs the "
                    + "namenode and the members of tarn.security.supergroup.", null);

    public static final ConfigKey<String> SECURITY_SUPERGROUP = ConfigKey.string("tarn.security.supergroup",
            "supergroup", "Members of this group are superusers (HDFS's dfs.permissions.superusergroup); empty "
                    + "for none.", null);

    public static final ConfigKey<String> SECURITY_GROUPS_FILE = ConfigKey.string("tarn.security.groups.file", "",
            "Where the namenode finds users' groups: a file of lines 'user: group, group'. Empty: the namenode "
                    + "host's accounts ('id -Gn user'). Clients' own claims of groups are never used.", null);

    public static final ConfigKey<Long> SECURITY_GROUPS_CACHE = ConfigKey.millis("tarn.security.groups.cache",
            300_000, 1_000, 24 * HOUR_MS, "How long the namenode trusts a user's groups before it asks again (in "
                    + "the background; requests meanwhile use the groups it has).");

    public static final ConfigKey<Long> SECURITY_BLOCK_TOKEN_LIFETIME = ConfigKey.millis(
            "tarn.security.block.token.lifetime", 10 * HOUR_MS, 1_000, 7 * 24 * HOUR_MS,
            "How long a block access token the namenode issues stays valid. Streams ask for new tokens when theirs "
                    + "expire, so this bounds only how long a token taken from a client stays useful.");

    public static final ConfigKey<Long> SECURITY_BLOCK_KEY_ROTATION = ConfigKey.millis(
            "tarn.security.block.key.rotation", 10 * HOUR_MS, 1_000, 7 * 24 * HOUR_MS,
            "How long each block key issues tokens before the next takes over. Datanodes hold the keys of the "
                    + "epochs whose tokens may still be valid (at most 62: the lifetime may span 62 rotations).");

    public static final ConfigKey<String> CLIENT_USER = ConfigKey.string("tarn.client.user", "",
            "The user name a client authenticates as (with a user key file, that file's user); empty means the "
                    + "JVM's user (user.name). The Hadoop adapter sets it to the caller's Hadoop user.", null);

    // ---- client ----

    public static final ConfigKey<Long> CLIENT_IO_CHUNK = ConfigKey.bytes("tarn.client.io.chunk", MIB, 4 * KIB,
            64 * MIB, "Bytes one data request carries (capped at the block size).");

    public static final ConfigKey<Long> CLIENT_READAHEAD = ConfigKey.bytes("tarn.client.readahead", 4 * MIB, 0, GIB,
            "Bytes a sequential reader keeps requested ahead of the position it has reached, at most; it tops "
                    + "them up once half of them are read, so that several requests leave together.");

    public static final ConfigKey<Long> CLIENT_READAHEAD_SHORTCIRCUIT = ConfigKey.bytes(
            "tarn.client.readahead.shortcircuit", 16 * MIB, 0, GIB, "Like tarn.client.readahead, for a sequential "
                    + "reader whose reads are short-circuit copies it makes itself (a reader of direct buffers from a "
                    + "co-located datanode): what it asks ahead are grants, which hold no memory until it copies.");

    public static final ConfigKey<Long> CLIENT_WRITE_BEHIND = ConfigKey.bytes("tarn.client.write.behind", 4 * MIB,
            0, GIB, "Bytes a writer may have in flight to datanodes before write() waits; a writer also allocates"
                    + " twice this many bytes of blocks (1 to 16 blocks) per namenode call.");

    public static final ConfigKey<Long> CLIENT_WRITE_BEHIND_SHORTCIRCUIT = ConfigKey.bytes(
            "tarn.client.write.behind.shortcircuit", 16 * MIB, 0, GIB, "How far ahead of its position a writer whose "
                    + "chunks go straight into a co-located datanode's region (a writer of direct buffers of a chunk "
                    + "or more) asks for grants, and the blocks under them; it tops them up once half are used, so "
                    + "that the requests of one top-up leave together. Grants hold no memory: the bytes are in the "
                    + "region when write() returns, so tarn.client.write.behind does not limit them.");

    public static final ConfigKey<Integer> CLIENT_STORAGE_CLASS = ConfigKey.integer("tarn.client.storage.class", 0,
            0, 15, "class", "Storage class new files prefer; allocation spills to the next class when it is full.");

    public static final ConfigKey<Boolean> CLIENT_LOCATION_AFFINITY = ConfigKey.bool("tarn.client.location.affinity",
            true, "Prefer blocks on a datanode of the client's own host when writing.");

    public static final ConfigKey<String> CLIENT_HOSTNAME = ConfigKey.string("tarn.client.hostname", "",
            "Host name the client uses for location affinity; empty means this machine's name.", null);

    public static final ConfigKey<ShortCircuitMode> CLIENT_SHORTCIRCUIT = ConfigKey.choice("tarn.client.shortcircuit",
            ShortCircuitMode.AUTO, ShortCircuitMode.class, "auto | off. off always uses TCP; auto copies block data "
                    + "straight from and to the region files of a DRAM datanode on the same host when this client can "
                    + "open them (see docs/short-circuit.md), and uses TCP for every other datanode.");

    public static final ConfigKey<Integer> CLIENT_WAIT_SPIN = ConfigKey.integer("tarn.client.wait.spin", 50, 0,
            10_000, "µs", "How long a thread blocked in a namespace call (create, close, getStatus, list, rename, "
                    + "delete, ...) polls for the namenode's answer before it sleeps, when it is the client's only "
                    + "thread waiting for one; 0 sleeps at once. Waking a sleeping thread is slow on VMs whose "
                    + "vCPUs halt when idle; polling keeps one core busy meanwhile, and never more than one per "
                    + "client.");

    public static final ConfigKey<Boolean> CLIENT_WAIT_DIRECT = ConfigKey.bool("tarn.client.wait.direct", true,
            "Whether a thread blocked in a namespace call sends the call and reads the answer itself, on a second "
                    + "connection to the namenode that one thread at a time uses, instead of handing both to the "
                    + "client's I/O thread: two thread wake-ups fewer per call. Other threads waiting meanwhile, and "
                    + "asynchronous calls, share the pipelined connection.");

    public static final ConfigKey<Long> CLIENT_LEASE_RENEW = ConfigKey.millis("tarn.client.lease.renew.interval",
            10_000, 10, HOUR_MS, "How often a client with files open for writing renews its lease.");

/**
     * The keys of one process, or of all: {@code title} says who reads them, for the documentation
     * (conf/tarn-site.conf has a section per group).
     */
    public static final ConfigKey<JournalMode> REPLICATION_JOURNAL = ConfigKey.choice("tarn.replication.journal",
            JournalMode.DISK, JournalMode.class, "disk | memory. Where the replicas of replicated block groups "
                    + "record votes and log entries. disk: a write-ahead journal of segment files per group, with "
                    + "group commit, forced to disk before a write is acknowledged; survives the crash of every "
                    + "member. memory: acknowledged once three memories hold it, for purely ephemeral data; "
                    + "survives any single failure, not a crash of all three members together.");

    public static final ConfigKey<String> REPLICATION_JOURNAL_DIR = ConfigKey.string("tarn.replication.journal.dir",
            "", "Directory on disk (not tmpfs) under which a datanode keeps the journal of each group it hosts, "
                    + "in <dir>/<storage id>/group-<id>/ with the group's members file; a datanode restarted on "
                    + "the same storage hosts again the groups it finds there. Empty: ${java.io.tmpdir}/tarn-journal. "
                    + "Unused with tarn.replication.journal = memory, which keeps nothing on disk.", null);

    public static final ConfigKey<ReplicationMode> REPLICATION_MODE = ConfigKey.choice("tarn.replication.mode",
            ReplicationMode.PARALLEL, ReplicationMode.class, "parallel | in_order. parallel (ParallelRaft): writes to "
                    + "different bytes of a group are acknowledged, committed and applied out of order, so one slow "
                    + "write does not hold back the others; in_order: Raft's order, for comparison.");

    public static final ConfigKey<Long> REPLICATION_ELECTION_TIMEOUT = ConfigKey.millis(
            "tarn.replication.election.timeout", 150, 10, 60_000, "A member that hears nothing from its group's "
                    + "leader for a random time between this and twice this stands for election. With the lease "
                    + "and the heartbeat it bounds how long a group is without a leader after its leader dies.");

    public static final ConfigKey<Long> REPLICATION_STEP_DOWN = ConfigKey.millis("tarn.replication.leader.stepdown",
            1_000, 20, 600_000, "A group's leader that hears from no majority of its members for this long steps "
                    + "down (its writes cannot commit meanwhile; they are then answered and their clients look "
                    + "for the new leader, which the others elect after their election timeout). Longer than "
                    + "the election timeout so that followers stalled for a moment (a GC pause, a starved "
                    + "process) do not make it give up; at least twice tarn.replication.election.timeout.");

    public static final ConfigKey<Long> REPLICATION_HEARTBEAT_INTERVAL = ConfigKey.millis(
            "tarn.replication.heartbeat.interval", 30, 1, 10_000, "How often a group's leader sends heartbeats; "
                    + "must be below tarn.replication.lease.");

    public static final ConfigKey<Long> REPLICATION_LEASE = ConfigKey.millis("tarn.replication.lease", 120, 0,
            60_000, "How long after a quorum acknowledged a heartbeat a group's leader serves reads without asking "
                    + "the others again; must be below tarn.replication.election.timeout (0: every read asks).");

    public static final ConfigKey<Integer> REPLICATION_WINDOW = ConfigKey.integer("tarn.replication.window", 32, 1,
            4096, "entries", "Writes a group's leader may have in flight beyond its commit prefix (and beyond "
                    + "each follower's acknowledged prefix); more are answered busy and retried by the client.");

    public static final ConfigKey<Integer> REPLICATION_CHECKPOINT_INTERVAL = ConfigKey.integer(
            "tarn.replication.checkpoint.interval", 1024, 16, 1 << 24, "entries", "Applied writes between two "
                    + "checkpoints of a group; the log before a checkpoint is dropped, and a member further behind "
                    + "catches up from a streamed image of the group's region.");

    public static final ConfigKey<Long> REPLICATION_CHECKPOINT_BYTES = ConfigKey.bytes(
            "tarn.replication.checkpoint.bytes", 64 * MIB, 64 * KIB, 1L << 40, "Payload bytes applied since a group's "
                    + "last checkpoint that start the next one, whichever of this and tarn.replication.checkpoint."
                    + "interval comes first: it bounds the log each replica holds in memory (and the journal on "
                    + "disk) by bytes, however large the writes.");

    public static final ConfigKey<Long> REPLICATION_MAX_BYTES_IN_FLIGHT = ConfigKey.bytes(
            "tarn.replication.max.bytes.in.flight", 16 * MIB, 4 * KIB, 1L << 40, "Payload bytes a group's leader "
                    + "may have sent to one follower and not had acknowledged; later writes wait for "
                    + "acknowledgments (one write always goes when nothing is in flight), so large writes do not "
                    + "flood a slow follower and crowd out heartbeats.");

    public static final ConfigKey<Long> REPLICATION_HELD_BYTES = ConfigKey.bytes(
            "tarn.replication.held.bytes", 256 * MIB, 1 * MIB, 1L << 40, "Client writes that the group leaders of "
                    + "a datanode hold back together, in arrival order, while their windows are full (at most a "
                    + "quarter of the datanode's heap; one group takes at most half). A write beyond it is "
                    + "answered busy and retried by its client, keeping its place in line: the room that frees "
                    + "up goes to the writes bounced first.");

    public static final ConfigKey<Long> REPLICATION_LAGGARD_WAIT = ConfigKey.millis(
            "tarn.replication.laggard.wait", 3_000, 0, 3_600_000, "Longest a group's leader holds new writes "
                    + "back for one live member that fell almost a checkpoint behind, so that it catches up "
                    + "from the log; past it writes go on without that member, which later catches up from a "
                    + "copy of the whole region (0: never wait).");

    public static final ConfigKey<Boolean> REPLICATION_PRE_VOTE = ConfigKey.bool("tarn.replication.prevote", true,
            "A member that hears nothing from its group's leader first asks the others whether they would vote "
                    + "for it, and stands for election only if a majority would. A member on a slow or cut link, "
                    + "or stalled, then cannot depose a leader the others still hear from; turn off only to "
                    + "compare.");

    public static final ConfigKey<Integer> REPLICATION_THREADS = ConfigKey.integer("tarn.replication.threads", 1, 1,
            256, "threads", "Replication loops of a datanode; each group runs on one of them.");

    public record Group(String title, List<ConfigKey<?>> keys) {
    }

    /** Every key, grouped by the process that reads it, in documentation order. */
    public static final List<Group> GROUPS = List.of(
            new Group("Cluster: read by every process", List.of(NAMENODE_ADDRESS, NAMENODE_MEMBERS, BLOCK_SIZE,
                    TRANSPORT, REPLICATION_DEFAULT)),
            new Group("RPC: every process's connections", List.of(RPC_TIMEOUT, RPC_CONNECT_TIMEOUT, RPC_MAX_FRAME,
                    RPC_IO_THREADS, RPC_MAX_INFLIGHT, RPC_SERVER_MAX_CONNECTIONS, RPC_SERVER_MAX_INFLIGHT,
                    RPC_SERVER_MAX_PARTIAL_BYTES, RPC_IDLE_TIMEOUT, RPC_SEND_BUFFER, RPC_SEND_BUFFER_LOCAL,
                    RPC_LEAK_DETECTION)),
            new Group("Namenode: read by tarn namenode", List.of(NAMENODE_BIND, NAMENODE_PARTITION, NAMENODE_MEMBER,
                    NAMENODE_POLL,
                    NAMENODE_JOURNAL, NAMENODE_JOURNAL_DIR, NAMENODE_CHECKPOINT_INTERVAL,
                    NAMENODE_CHECKPOINT_RECORDS, LEASE_TIMEOUT, DATANODE_TIMEOUT, DATANODE_EXPIRY, NAMENODE_AUDIT,
                    NAMENODE_EXPIRE_DIRS, DATANODE_REPLACE_AFTER)),
            new Group("Datanode: read by tarn datanode", List.of(DATANODE_BIND, DATANODE_HOSTNAME,
                    HEARTBEAT_INTERVAL, STORAGE_CLASS, DRAM_CAPACITY, DRAM_REGION_SIZE, DRAM_PATH, DRAM_MODE,
                    DRAM_KEEP, DRAM_PRETOUCH, DRAM_SHORTCIRCUIT)),
            new Group("Replication: read by tarn datanode for replicated block groups",
                    List.of(REPLICATION_JOURNAL, REPLICATION_JOURNAL_DIR, REPLICATION_MODE,
                            REPLICATION_ELECTION_TIMEOUT, REPLICATION_STEP_DOWN, REPLICATION_HEARTBEAT_INTERVAL,
                            REPLICATION_LEASE,
                            REPLICATION_WINDOW, REPLICATION_CHECKPOINT_INTERVAL, REPLICATION_CHECKPOINT_BYTES,
                            REPLICATION_MAX_BYTES_IN_FLIGHT, REPLICATION_HELD_BYTES, REPLICATION_LAGGARD_WAIT,
                            REPLICATION_PRE_VOTE, REPLICATION_THREADS)),
            new Group("Security: read by every process", List.of(SECURITY_AUTHENTICATION, SECURITY_SECRET_FILE,
                    SECURITY_AUTH_TIMEOUT, SECURITY_TLS, SECURITY_TLS_CERT, SECURITY_TLS_KEY, SECURITY_TLS_CA,
                    SECURITY_TLS_CLIENT_AUTH)),
            new Group("Permissions and block tokens: read by tarn namenode", List.of(SECURITY_PERMISSIONS,
                    SECURITY_SUPERUSERS, SECURITY_SUPERGROUP, SECURITY_GROUPS_FILE, SECURITY_GROUPS_CACHE,
                    SECURITY_BLOCK_TOKEN_LIFETIME, SECURITY_BLOCK_KEY_ROTATION)),
            new Group("Client: read by applications, tarn fs and tarn iobench (fs.tarn.* in Hadoop)",
                    List.of(CLIENT_IO_CHUNK, CLIENT_READAHEAD, CLIENT_READAHEAD_SHORTCIRCUIT, CLIENT_WRITE_BEHIND,
                            CLIENT_WRITE_BEHIND_SHORTCIRCUIT, CLIENT_STORAGE_CLASS, CLIENT_LOCATION_AFFINITY,
                            CLIENT_HOSTNAME, CLIENT_SHORTCIRCUIT, CLIENT_WAIT_SPIN, CLIENT_WAIT_DIRECT,
                            CLIENT_LEASE_RENEW, CLIENT_USER)));

    /** All keys, in documentation order. */
    public static final List<ConfigKey<?>> ALL = GROUPS.stream().flatMap(g -> g.keys().stream()).toList();

    static String checkMembers(String v) {
        if (v.isEmpty()) {
            return null;
        }
        if (v.contains(",")) {
            return "lists the members of one group, separated by '|', not several partitions";
        }
        return checkHostPorts(v);
    }

    static String checkHostPorts(String v) {
        String[] parts = v.split(",", -1);
        if (parts.length > 256) {
            return "lists " + parts.length + " namenodes; at most 256 are supported";
        }
        for (String p : parts) {
            String[] members = p.split("\\|", -1);
            if (members.length != 1 && members.length != 3 && members.length != 5) {
                return "'" + p + "' lists " + members.length + " members of a namenode group; a group has 3 or 5";
            }
            for (String m : members) {
                String problem = checkHostPort(m);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    static String checkHostPort(String v) {
        try {
            HostPort.parse(v);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
