package io.tarn.datanode.replication;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.JournalMode;
import io.tarn.common.config.ReplicationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.ChangeGroup;
import io.tarn.common.protocol.AdminProtocol.CreateGroup;
import io.tarn.common.protocol.AdminProtocol.DeleteGroup;
import io.tarn.common.protocol.AdminProtocol.FailedGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.GroupCommands;
import io.tarn.datanode.RegionStore;
import io.tarn.datanode.Registration;
import io.tarn.replication.Mode;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Status;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.JournalWriter;
import io.tarn.replication.host.MemoryJournal;
import io.tarn.replication.host.ReplicaJournal;
import io.tarn.replication.host.ReplicationHost;

/**
 * The block groups a datanode hosts, as the namenodes command: creates each group's replica
 * (members file, journal, {@link RegionGroupStore} over its region, a {@link GroupRunner} in the
 * {@link ReplicationHost}) on {@code CreateGroup}, removes it and its files on {@code DeleteGroup},
 * hosts again after a restart the groups whose members files it finds ({@link #recover}), and
 * reports in heartbeats the groups hosted and the ones it leads ({@link GroupCommands}).
 *
 * <p>Leadership is read from each group's runner ({@link GroupRunner#leads()}, a volatile read, no
 * message to the loop): a heartbeat reports the groups whose replica is an active leader confirmed
 * by a quorum within its lease, with its current term. A group stopped here (an effect failed) or
 * whose journal failed is still listed as hosted (so that the namenode's {@code DeleteGroup} still
 * reaches it and its region stays reserved) but never reported as led, and {@link #failures()} says
 * why.
 *
 * <p>The replication host (its loops tick every millisecond) starts with the first group, so a
 * datanode without groups costs nothing. Commands and recovery run on the namenode links' thread;
 * the REPLICA audience is served ({@link #handle}) on the transport's I/O threads.
 */
public final class HostedGroups implements GroupCommands, RpcHandler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostedGroups.class);

    private record Hosted(GroupMembers members, GroupRunner runner, int region) {
    }

    private final Transport transport;
    private final RegionStore regions;
    private final IntFunction<Registration> registrations;
    private final GroupCatalog catalog;
    private final JournalMode mode;
    private final ReplicationHost.Settings settings;
    private final String name;
    private final Map<Long, Hosted> groups = new ConcurrentHashMap<>();
    /** 1 for each region that holds a hosted group's replica. */
    private final AtomicIntegerArray replicaRegions;
    private volatile ReplicationHost host;
    /** The clients' block group calls on {@link #host}; set with it. */
    private volatile ReplicaService service;
    private volatile LongConsumer unknownGroup = id -> { };
    private JournalWriter writer;
    private volatile boolean closed;

    /**
     * @param transport     the datanode's transport (connections to the other members)
     * @param regions       the datanode's regions
     * @param registrations each partition's current registration (null before its first)
     * @param catalog       where the members files and journals live
     * @param mode          disk: journals in the catalog's directories; memory: nothing on disk
     * @param settings      the replication host's settings
     * @param name          thread name prefix
     */
    public HostedGroups(Transport transport, RegionStore regions, IntFunction<Registration> registrations,
                        GroupCatalog catalog, JournalMode mode, ReplicationHost.Settings settings, String name) {
        this.transport = transport;
        this.regions = regions;
        this.registrations = registrations;
        this.catalog = catalog;
        this.mode = mode;
        this.settings = settings;
        this.name = name;
        this.replicaRegions = new AtomicIntegerArray(regions.regionCount());
    }

    /**
     * A datanode's replication settings from its configuration ({@link ReplicationHost.Settings#of}),
     * in the mode {@code tarn.replication.mode} names.
     *
     * @throws ConfigException when the keys contradict each other, naming them
     */
    public static ReplicationHost.Settings settings(TarnConfig config) {
        return ReplicationHost.Settings.of(config,
                config.get(TarnKeys.REPLICATION_MODE) == ReplicationMode.IN_ORDER ? Mode.IN_ORDER : Mode.PARALLEL);
    }

    private synchronized ReplicationHost host() {
        if (host == null) {
            ReplicationHost h = new ReplicationHost(transport, settings, "datanode", name);
            h.onUnknownGroup(unknownGroup);
            if (mode == JournalMode.DISK) {
                writer = new JournalWriter(JournalWriter.DEFAULT_CAPACITY, h);
            }
            service = new ReplicaService(h, this::check);
            host = h;
        }
        return host;
    }

    /**
     * Checks a client's token with this datanode's registration at the namenode that issued it (the
     * stamp names it: the namenode that created the group, whose files' blocks it stays with).
     */
    private BlockTokens.Verdict check(long groupId, int region, int slot, int generation, long token, long stamp,
                                      int mode) {
        if (BlockTokens.issuer(stamp) != BlockGroup.partitionOf(groupId)) {
            return BlockTokens.Verdict.UNKNOWN_KEY;
        }
        Registration reg = registrations.apply(BlockGroup.partitionOf(groupId));
        return reg == null ? BlockTokens.Verdict.UNKNOWN_KEY
                : reg.tokens().check(token, stamp, reg.datanodeId(), region, slot, generation, mode);
    }

    /**
     * True when {@code region} holds the replica of a group hosted here (written only through the
     * group). One array load: the block service asks it for every direct write.
     */
    public boolean replicaRegion(int region) {
        return region >= 0 && region < replicaRegions.length() && replicaRegions.get(region) != 0;
    }

    /** The ids of the groups hosted here. */
    public List<Long> hosted() {
        return List.copyOf(groups.keySet());
    }

    /** The runner of a hosted group, or null. */
    public GroupRunner runner(long groupId) {
        Hosted h = groups.get(groupId);
        return h == null ? null : h.runner();
    }

    /** The members of a hosted group and where they serve, as this datanode knows them, or null. */
    public GroupMembers members(long groupId) {
        Hosted h = groups.get(groupId);
        return h == null ? null : h.members();
    }

    /** True when this member leads a hosted group now (see {@link GroupRunner#leads()}). */
    public boolean leads(long groupId) {
        Hosted h = groups.get(groupId);
        return h != null && h.runner().leads();
    }


    @Override
    public List<Long> hosted(int partition) {
        List<Long> out = new ArrayList<>();
        for (long id : groups.keySet()) {
            if (BlockGroup.partitionOf(id) == partition) {
                out.add(id);
            }
        }
        return out;
    }

    @Override
    public List<LeaderReport> leading(int partition) {
        List<LeaderReport> out = new ArrayList<>();
        for (Hosted h : groups.values()) {
            long id = h.members().groupId();
            if (BlockGroup.partitionOf(id) != partition) {
                continue;
            }
            GroupRunner r = h.runner();
            // Term first: a leader's term cannot change while it stays leader, so a report read
            // across a change names at worst a term it led in, which the namenode orders by term.
            long term = r.term();
            if (r.leads()) {
                out.add(new LeaderReport(id, h.members().self(), term, r.settledMembers()));
            }
        }
        return out;
    }

    @Override
    public List<FailedGroup> failed(int partition) {
        List<FailedGroup> out = new ArrayList<>();
        for (Hosted h : groups.values()) {
            long id = h.members().groupId();
            String why = BlockGroup.partitionOf(id) == partition ? h.runner().failure() : null;
            if (why != null) {
                out.add(new FailedGroup(id, why));
            }
        }
        return out;
    }

    @Override
    public void apply(int partition, List<GroupCommand> commands) {
        for (GroupCommand c : commands) {
            if (BlockGroup.partitionOf(c.groupId()) != partition) {
                LOG.warn("Namenode {} sent a command for group {}, which another namenode placed; ignored", partition,
                        c.groupId());
            } else if (c instanceof CreateGroup create) {
                create(create.group(), create.self(), create.campaign());
            } else if (c instanceof DeleteGroup) {
                delete(c.groupId());
            } else if (c instanceof ChangeGroup change) {
                change(change.target());
            }
        }
    }

    /**
     * The members a replica whose log and checkpoint name no configuration is in: the group's as
     * created (members 0, 1, 2, whatever the members file says after a replacement), or none for a
     * replacement member, which joins empty and learns the configuration from the leader.
     */
    private static List<Integer> founders(BlockGroup group, int self) {
        if (self >= BlockGroup.FOUNDERS) {
            return List.of();
        }
        List<Integer> ids = group.members().stream().map(GroupMember::memberId).sorted().toList();
        if (group.version() == 1) {
            return ids;
        }
        List<Integer> founders = new ArrayList<>();
        for (int m = 0; m < BlockGroup.FOUNDERS; m++) {
            founders.add(m);
        }
        return founders;
    }

    /**
     * A member of the group is being replaced: learn every member's address (and keep them in the
     * members file for a restart); the leader proposes the next step of the change.
     */
    private void change(BlockGroup target) {
        long id = target.groupId();
        Hosted h = groups.get(id);
        ReplicationHost current = host;
        if (h == null || current == null) {
            return;
        }
        Map<Integer, InetSocketAddress> addresses = new HashMap<>(h.members().addresses());
        for (GroupMember m : target.members()) {
            addresses.put(m.memberId(), new InetSocketAddress(m.host(), m.port()));
        }
        int self = h.members().self();
        GroupMembers members = new GroupMembers(id, Math.max(target.version(), h.members().version()), self,
                addresses);
        if (members.version() != h.members().version() || !addresses.equals(h.members().addresses())) {
            current.updateMembers(members);
            groups.put(id, new Hosted(members, h.runner(), h.region()));
            if (mode == JournalMode.DISK && target.member(self) != null) {
                // The members leaving stay in the configuration (and may lead) until the change
                // commits: a restart meanwhile must still know where they are.
                List<GroupCatalog.Peer> others = new ArrayList<>();
                addresses.forEach((m, a) -> others.add(new GroupCatalog.Peer(m, a.getHostString(), a.getPort())));
                try {
                    catalog.save(target, self, others);
                } catch (IOException e) {
                    LOG.warn("Block group {}: the members file in {} could not be updated: {}", id,
                            catalog.directory(id), e.toString());
                }
            }
        }
        if (h.runner().leads()) {
            List<Integer> ids = target.members().stream().map(GroupMember::memberId).sorted().toList();
            h.runner().moveTowards(ids, members.names()).whenComplete((status, failure) -> {
                if (failure != null || status != Status.OK && status != Status.BUSY) {
                    LOG.debug("Block group {}: no step towards members {} now: {}", id, ids,
                            failure != null ? failure.toString() : status);
                }
            });
        }
    }

    /**
     * Hosts the groups of {@code partition} found in the catalog and not hosted yet (after a
     * restart), once that partition's namenode registered this datanode. Runs on the links' thread.
     */
    public void recover(int partition) {
        if (mode != JournalMode.DISK) {
            return;
        }
        for (GroupCatalog.Entry e : catalog.list()) {
            long id = e.group().groupId();
            if (BlockGroup.partitionOf(id) == partition && !groups.containsKey(id)) {
                LOG.info("Hosting block group {} again from its journal in {}", id, catalog.directory(id));
                start(e.group(), e.self(), e.others(), false, PersistentState.wiped());
            }
        }
    }

    private void create(BlockGroup group, int self, boolean campaign) {
        long id = group.groupId();
        Hosted existing = groups.get(id);
        if (existing != null && existing.members().self() != self) {
            LOG.warn("Block group {}: the namenode places member {} here, but this datanode still hosts the group "
                    + "as member {}; it waits for the namenode to have that copy deleted", id, self,
                    existing.members().self());
        }
        if (closed || existing != null) {
            return;
        }
        if (mode == JournalMode.DISK) {
            try {
                catalog.save(group, self);
            } catch (IOException e) {
                LOG.error("Cannot host block group {}: its members file in {} cannot be written ({}); the namenode "
                        + "asks again at the next heartbeat", id, catalog.directory(id), e.toString());
                return;
            }
        }
        boolean joining = self >= BlockGroup.FOUNDERS;
        if (start(group, self, List.of(), campaign,
                joining ? PersistentState.wiped() : PersistentState.initialVoter())) {
            LOG.info("Hosting block group {} as member {} of {}{}", id, self, group.members().size(),
                    campaign ? ", standing for election" : joining ? ", joining empty to replace a member" : "");
        }
    }

    /**
     * Starts the replica of a group from its journal ({@code ifNew} when the journal has nothing),
     * knowing the addresses of the group's members and of {@code others}, members it no longer
     * lists. A group whose region's namenode has not registered this datanode yet is left for later.
     */
    private boolean start(BlockGroup group, int self, List<GroupCatalog.Peer> others, boolean campaign,
                          PersistentState ifNew) {
        long id = group.groupId();
        Registration reg = registrations.apply(BlockGroup.partitionOf(id));
        GroupMember me = group.member(self);
        if (reg == null || me.regionId() < 0 || me.regionId() >= regions.regionCount()) {
            LOG.warn("Cannot host block group {} yet: {}", id, reg == null ? "its namenode has not registered this "
                    + "datanode" : "region " + me.regionId() + " does not exist here");
            return false;
        }
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        for (GroupMember m : group.members()) {
            addresses.put(m.memberId(), new InetSocketAddress(m.host(), m.port()));
        }
        for (GroupCatalog.Peer p : others) {
            addresses.putIfAbsent(p.memberId(), new InetSocketAddress(p.host(), p.port()));
        }
        GroupMembers members = new GroupMembers(id, group.version(), self, addresses);
        ReplicationHost h = host();
        ReplicaJournal journal;
        try {
            journal = mode == JournalMode.DISK ? GroupJournal.openOrWipe(id, catalog.directory(id), ifNew, writer)
                    : new MemoryJournal(id, ifNew, h);
        } catch (IOException e) {
            LOG.error("Cannot host block group {}: its journal in {} cannot be opened: {}", id,
                    catalog.directory(id), e.getMessage());
            return false;
        }
        RegionGroupStore store = new RegionGroupStore(regions, reg.generations(), me.regionId(), reg.blockSize());
        PersistentState recovered = journal.recovered();
        if (recovered.entries().isEmpty() && recovered.checkpoint().meta().index() == 0) {
            store.forgetGenerations(); // nothing of the group applied here yet: see forgetGenerations
        }
        replicaRegions.set(me.regionId(), 1);
        GroupRunner runner;
        try {
            runner = h.create(members, founders(group, self), store, journal, campaign,
                    mode == JournalMode.DISK ? catalog.directory(id) : null);
        } catch (RuntimeException e) {
            // One group that cannot start (its checkpoint image cannot be restored into the region) must
            // not fail the registration that recovers the others, nor the heartbeat that commands it.
            LOG.error("Cannot host block group {}: its replica cannot be started from its journal in {}: {}", id,
                    catalog.directory(id), e.toString(), e);
            journal.close();
            return false;
        }
        groups.put(id, new Hosted(members, runner, me.regionId()));
        return true;
    }

    /** Stops the replica, deletes its files, and only then stops reporting the group (so it is gone when unlisted). */
    private void delete(long id) {
        Hosted h = groups.get(id);
        ReplicationHost current = host;
        if (h != null && current != null) {
            current.remove(id);
        }
        try {
            catalog.delete(id);
        } catch (IOException e) {
            LOG.warn("Block group {} is no longer hosted, but its files in {} could not be deleted: {}", id,
                    catalog.directory(id), e.toString());
        }
        if (groups.remove(id) != null) {
            replicaRegions.set(h.region(), 0);
            LOG.info("No longer hosting block group {}: its namenode destroyed it", id);
        }
    }

    /**
     * Told the id of each group a client or another member asked for that this datanode does not
     * host, or -1 when it hosts none yet (see {@link ReplicationHost#onUnknownGroup}): the datanode
     * then asks its namenode for its commands at once, in case the group is a new one.
     */
    public void onUnknownGroup(LongConsumer listener) {
        unknownGroup = listener;
        ReplicationHost h = host;
        if (h != null) {
            h.onUnknownGroup(listener);
        }
    }

    /** The REPLICA audience: the host's replication service, or UNKNOWN_GROUP before the first group. */
    @Override
    public void handle(RpcRequest request) throws Exception {
        ReplicaService s = service;
        if (s == null) {
            unknownGroup.accept(-1);
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode hosts no block group");
            return;
        }
        s.handle(request);
    }

    /** Stops every group (their journals stay for a restart) and the host. */
    @Override
    public synchronized void close() {
        closed = true;
        groups.clear();
        if (host != null) {
            host.close();
        }
        if (writer != null) {
            writer.close();
        }
    }
}
