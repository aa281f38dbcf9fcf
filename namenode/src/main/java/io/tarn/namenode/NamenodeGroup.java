package io.tarn.namenode;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.protocol.AdminProtocol.NamenodeGroupStatus;
import io.tarn.common.protocol.AdminProtocol.NamenodeMemberStatus;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.group.GroupLog;
import io.tarn.namenode.group.NamespaceStore;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Role;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.JournalWriter;
import io.tarn.replication.host.ReplicaMessages;
import io.tarn.replication.host.ReplicationHost;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A namenode that is one member of its partition's replicated group: the members keep one namespace
 * with the replication core (IN_ORDER), whose log is their journal. The leader serves every
 * request; the others are hot standbys that apply what the group commits and answer NOT_LEADER
 * with the leader's address (or RETRY while the group has none).
 *
 * <p><b>Incarnations.</b> What the member serves is an incarnation: a {@link NamenodeService} fed
 * by its {@link NamespaceStore} from the group's journal. A follower's incarnation replays; once
 * its replica leads and has applied every entry its log holds (a read index, then waiting until it
 * is applied), it is promoted on the group's loop: the replay ends and mutations are recorded to a
 * {@link GroupLog}, answered once the group committed them. When it stops leading (another
 * leader, a term change, or its log failed) its namespace may hold changes the group never
 * committed: the incarnation is dropped and a new one is rebuilt from the journal (checkpoint
 * image and log), as a restart would, without stopping the process.
 *
 * <p><b>Leases.</b> The leader serves a request only while its replica knows it leads, confirmed by
 * a quorum within the lease ({@link GroupRunner#leads()}); otherwise the request is answered RETRY,
 * so a leader cut off from its group stops answering lookups within a lease.
 *
 * <p>A watcher thread acts on leadership changes as the group's runner reports them
 * ({@link GroupRunner#onLeadershipChange}), checks the leader's log and replica every
 * {@value #WATCH_MS} ms (or every {@code maintenanceMs} when shorter) and runs the leader's
 * maintenance (liveness, leases) every {@code maintenanceMs}. An idle member wakes rarely: its
 * replication timer fires every {@value #TIMER_MS} ms (delivering the 1 ms ticks due), so that the
 * members of a group sharing a host's cores with a busy leader and its clients do not preempt
 * them a thousand times a second.
 */
final class NamenodeGroup implements RpcHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeGroup.class);
    /** How often leadership and the leader's log are checked besides the runner's reports. */
    static final long WATCH_MS = 50;
    /** The replication timer's period at most (a quarter of the heartbeat interval when shorter). */
    static final long TIMER_MS = 5;
    /** Records the leader's log takes that the group has not committed, before it answers busy. */
    private static final int LOG_CAPACITY = 65_536;

    private final int partition;
    private final int member;
    private final List<HostPort> addresses;
    private final ReplicationHost host;
    private final JournalWriter writer;
    private final GroupMembers members;
    private final Path dir;
    private final Function<EditLog, NamenodeService> services;
    private final ScheduledExecutorService watcher;
    private final long maintenanceMs;
    private final Transport transport;
    private final long rpcTimeoutMs;
    private volatile Incarnation current;
    private volatile boolean closed;
    private long lastMaintenance;
    private long rebuilds;

    /** One life of this member's namespace, from its journal. */
    private final class Incarnation {
        final JournalEditLog editLog = new JournalEditLog();
        final NamespaceStore store;
        final GroupRunner runner;
        final long startedNanos = System.nanoTime();
        volatile NamenodeService service;
        volatile GroupLog log;
        volatile boolean leading;
        /** Watcher thread only. */
        boolean promoting;
        long term;

        Incarnation() throws IOException {
            service = services.apply(editLog);
            store = new NamespaceStore(() -> {
                service = services.apply(editLog);
                return service.namespace().replay();
            }, service.namespace().replay(), () -> services.apply(EditLog.NONE));
            GroupJournal journal = GroupJournal.open(partition, dir, PersistentState.initialVoter(), writer);
            runner = host.create(members, members.ids(), store, journal, false, dir);
            runner.onLeadershipChange(NamenodeGroup.this::watchSoon);
        }
    }

    /**
     * @param partition     the partition the group serves
     * @param member        this namenode's member id (its place in {@code addresses})
     * @param addresses     every member's address, in member order
     * @param transport     the namenode's transport, for the messages between members
     * @param settings      the group's replication settings
     * @param dir           the group's journal directory on this member
     * @param services      makes an empty namenode service that records to the given log
     * @param maintenanceMs how often the leader runs its maintenance
     * @param rpcTimeoutMs  with several partitions: how long a call to another partition's namenode
     *                      (or group) waits for its answer
     */
    NamenodeGroup(int partition, int member, List<HostPort> addresses, Transport transport,
                  ReplicationHost.Settings settings, Path dir, Function<EditLog, NamenodeService> services,
                  long maintenanceMs, long rpcTimeoutMs) throws IOException {
        this.partition = partition;
        this.transport = transport;
        this.rpcTimeoutMs = rpcTimeoutMs;
        this.member = member;
        this.addresses = List.copyOf(addresses);
        this.dir = dir;
        this.services = services;
        this.maintenanceMs = maintenanceMs;
        Map<Integer, InetSocketAddress> byId = new HashMap<>();
        for (int i = 0; i < addresses.size(); i++) {
            byId.put(i, new InetSocketAddress(addresses.get(i).host(), addresses.get(i).port()));
        }
        this.members = new GroupMembers(partition, 1, member, byId);
        long timerNanos = Math.max(settings.tickNanos(), Math.min(TimeUnit.MILLISECONDS.toNanos(TIMER_MS),
                settings.config().heartbeatTicks() * settings.tickNanos() / 4));
        this.host = new ReplicationHost(transport, settings.withTimerNanos(timerNanos), "namenode",
                "tarn-namenode-group-" + partition);
        this.writer = new JournalWriter(JournalWriter.DEFAULT_CAPACITY, host);
        this.watcher = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tarn-namenode-group-watch-" + partition + "-" + member);
            t.setDaemon(true);
            return t;
        });
        try {
            this.current = new Incarnation();
        } catch (IOException | RuntimeException e) {
            watcher.shutdownNow();
            host.close();
            writer.close();
            throw e;
        }
        long watchMs = Math.max(1, Math.min(WATCH_MS, maintenanceMs));
        watcher.scheduleWithFixedDelay(this::watch, watchMs, watchMs, TimeUnit.MILLISECONDS);
        LOG.info("Namenode group of partition {}: member {} of {} ({}), journal in {}", partition, member,
                addresses.size(), addresses, dir);
    }

    /** The service of the current incarnation (a follower's is not served). */
    NamenodeService service() {
        return current.service;
    }

    /** Whether this member leads and serves. */
    boolean leading() {
        return current.leading;
    }

    /** The group's runner on this member (for tests and status). */
    GroupRunner runner() {
        return current.runner;
    }

    /** Incarnations dropped because this member stopped leading. */
    long rebuilds() {
        return rebuilds;
    }

    @Override
    public void handle(RpcRequest request) throws Exception {
        int opcode = request.opcode();
        if (ReplicaMessages.serves(opcode)) {
            host.messages().handle(request);
            return;
        }
        Incarnation inc = current;
        if (inc.leading && inc.runner.leads()) {
            inc.service.handle(request);
            return;
        }
        if (opcode == Opcode.PING || opcode == Opcode.GET_PARTITIONS) {
            inc.service.handle(request); // the same answer at every member
            return;
        }
        int leader = inc.runner.leaderId();
        if (leader >= 0 && leader != member && leader < addresses.size()) {
            String at = addresses.get(leader).toString();
            request.fail(ErrorCode.NOT_LEADER, "namenode " + addresses.get(member) + " is member " + member
                    + " of the group of partition " + partition + ", which member " + leader + " (" + at
                    + ") leads", new ErrorDetail.Redirect(leader, at));
            return;
        }
        request.fail(ErrorCode.RETRY, "the namenode group of partition " + partition + " has no leader serving "
                + (leader != member ? "(it is electing one)" : inc.leading ? "(this member leads but has not heard "
                + "from a majority within its lease)" : "(this member was elected and is taking over)"));
    }

    /** Runs {@link #watch} on the watcher now (called on the group's loop after a leadership change). */
    private void watchSoon() {
        try {
            watcher.execute(this::watch);
        } catch (RejectedExecutionException e) {
            // closed: nothing to watch any more
        }
    }

    private void watch() {
        if (closed) {
            return;
        }
        try {
            Incarnation inc = current;
            if (inc == null) {
                return; // a change reported while the first incarnation is being made
            }
            if (!inc.leading) {
                if (!inc.promoting && inc.runner.leads()) {
                    inc.promoting = true;
                    promote(inc);
                }
                return;
            }
            GroupLog log = inc.log;
            String lost = log.failure() != null ? log.failure()
                    : inc.runner.failure() != null ? inc.runner.failure()
                    : inc.runner.role() != Role.LEADER ? "its replica is a " + inc.runner.role() + " now"
                    : inc.runner.term() != inc.term ? "its replica is in term " + inc.runner.term() + " now" : null;
            if (lost != null) {
                rebuild(inc, lost);
                return;
            }
            long now = System.nanoTime();
            if (now - lastMaintenance >= TimeUnit.MILLISECONDS.toNanos(maintenanceMs)) {
                lastMaintenance = now;
                inc.service.runMaintenance();
            }
        } catch (RuntimeException e) {
            LOG.error("Namenode group of partition {}: watching member {} failed", partition, member, e);
        }
    }

    /** Learns a read index, waits until it is applied, then takes the lead on the group's loop. */
    private void promote(Incarnation inc) {
        long term = inc.runner.term();
        long started = System.nanoTime();
        inc.runner.readIndex()
                .thenCompose(ri -> ri.index() < 0
                        ? CompletableFuture.completedFuture(ri.refusal())
                        : inc.runner.awaitApplied(ri.index()))
                .whenComplete((applied, failure) -> {
                    if (failure != null || !applied.ok()) {
                        watcher.execute(() -> inc.promoting = false); // tried again at the next watch
                        return;
                    }
                    inc.runner.loop().execute(() -> takeLead(inc, term, started));
                });
    }

    /** On the group's loop: everything committed is applied; this incarnation starts serving. */
    private void takeLead(Incarnation inc, long term, long started) {
        if (closed || current != inc || inc.runner.term() != term || !inc.runner.leads()) {
            watcher.execute(() -> inc.promoting = false);
            return;
        }
        GroupLog log = new GroupLog(inc.runner, inc.store.appliedSeq(), LOG_CAPACITY,
                "the namespace log of the group of partition " + partition);
        inc.store.lead(log);
        inc.editLog.attach(log);
        NamenodeService service = inc.service;
        service.groupStatus(() -> status(inc));
        boolean several = service.partitioning().count() > 1;
        if (several) {
            service.startup().shut(); // until the links to the other partitions are up (joinPartitions)
        }
        service.journal(log);
        if (log.lastSeq() == 0) {
            service.namespace().recordRoot();
            service.namespace().recordTokens(); // every member issues tokens under the first leader's key
        }
        inc.log = log;
        inc.term = term;
        service.datanodes().startServing();
        inc.leading = true;
        if (several) {
            Thread t = new Thread(() -> joinPartitions(inc, service), "tarn-namenode-group-peers-" + partition + "-"
                    + member);
            t.setDaemon(true);
            t.start();
        }
        LOG.info("Namenode group of partition {}: member {} ({}) leads in term {} and serves: {} files, {} "
                        + "directories, records up to {} applied ({} ms after its election was known here)",
                partition, member, addresses.get(member), term, service.namespace().fileCount(),
                service.namespace().directoryCount(), log.lastSeq(), (System.nanoTime() - started) / 1_000_000);
    }

    /**
     * With several partitions, what a single namenode does when it starts, done by each new leader:
     * connects to the other partitions (each group through its leader), has partition 0's
     * coordinator carry through the directory change its journal left unfinished, and has any
     * other partition take partition 0's directory tree (which holds every directory change any
     * partition may hold), waiting for it as long as this incarnation leads. Until then the
     * startup gate answers RETRY to what needs the tree.
     */
    private void joinPartitions(Incarnation inc, NamenodeService service) {
        PeerLinks links = service.links();
        try {
            links.start(transport, rpcTimeoutMs, service::durable);
            if (links.coordinator() != null) {
                links.coordinator().recover(); // queued before any client's directory change can be
            }
            if (!service.partitioning().isCoordinator()) {
                while (true) {
                    try {
                        links.takeCoordinatorTree(rpcTimeoutMs, Math.max(Namenode.COORDINATOR_WAIT_MS, rpcTimeoutMs));
                        break;
                    } catch (IOException e) {
                        if (closed || current != inc || !inc.leading) {
                            return; // a new incarnation joins again
                        }
                        LOG.warn("Namenode group of partition {}: member {} leads but serves nothing that needs the "
                                + "directory tree yet: {}", partition, member, e.getMessage());
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.error("Namenode group of partition {}: member {} could not join the other partitions", partition,
                    member, e);
        } finally {
            service.startup().open(service::handle);
        }
    }

    /**
     * The group as this member sees it while it leads: every member, when it was last heard, and
     * whether in sync (it holds the leader's log, and spoke within three heartbeats).
     */
    private NamenodeGroupStatus status(Incarnation inc) {
        Map<Integer, Long> heard = inc.runner.heardAgoMs();
        List<Integer> inSync = inc.runner.settledMembers();
        long silence = inc.runner.silenceMs();
        List<NamenodeMemberStatus> out = new ArrayList<>(addresses.size());
        for (int m = 0; m < addresses.size(); m++) {
            long heardAgo = m == member ? 0 : heard.getOrDefault(m, -1L);
            boolean synced = m == member || inSync.contains(m) && heardAgo >= 0 && heardAgo <= silence;
            out.add(new NamenodeMemberStatus(m, addresses.get(m).toString(), heardAgo, synced));
        }
        return new NamenodeGroupStatus(member, inc.runner.term(), out);
    }

    /** Drops an incarnation that stopped leading and rebuilds this member's namespace from the journal. */
    private void rebuild(Incarnation inc, String why) {
        inc.leading = false;
        LOG.warn("Namenode group of partition {}: member {} stops serving ({}); its namespace is rebuilt from the "
                + "group's journal", partition, member, why);
        inc.log.close();
        inc.service.links().stop();
        host.remove(partition);
        try {
            current = new Incarnation();
            rebuilds++;
        } catch (IOException e) {
            closed = true;
            throw new UncheckedIOException("namenode group of partition " + partition + ": member " + member
                    + " cannot reopen its journal " + dir + " after stopping to lead; restart it", e);
        }
    }

    @Override
    public void close() {
        closed = true;
        watcher.shutdownNow();
        try {
            watcher.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        GroupLog log = current.log;
        if (log != null) {
            log.close();
        }
        current.service.links().stop();
        host.close();
        writer.close();
    }
}
