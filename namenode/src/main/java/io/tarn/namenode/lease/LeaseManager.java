package io.tarn.namenode.lease;

import io.tarn.namenode.Clock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Write leases by client: which files each client holds open for writing and when it last renewed.
 *
 * <p>A client's lease covers all its files and is renewed as a whole ({@code RENEW_LEASE}, or
 * implicitly by creating a file). A lease not renewed for the timeout expires; {@link #expire()}
 * hands its files to the caller, which closes them (lease recovery). Per-client updates go through
 * {@link ConcurrentHashMap#compute}, so adding a file can never slip into a lease that is being
 * expired at the same moment; different clients never contend.
 */
public final class LeaseManager {
    private final Clock clock;
    private final long timeoutMs;
    private final Map<Long, Lease> leases = new ConcurrentHashMap<>();

    private static final class Lease {
        final Set<Long> files = ConcurrentHashMap.newKeySet();
        volatile long renewedAt;

        Lease(long now) {
            renewedAt = now;
        }
    }

    /** A lease that expired and the files it held. */
    public record Expired(long clientId, long silenceMs, List<Long> fileIds) {
    }

    public LeaseManager(Clock clock, long timeoutMs) {
        this.clock = clock;
        this.timeoutMs = timeoutMs;
    }

    public long timeoutMs() {
        return timeoutMs;
    }

    /** Adds a file to the client's lease (creating and renewing it). */
    public void acquire(long clientId, long fileId) {
        long now = clock.millis();
        leases.compute(clientId, (k, lease) -> {
            Lease l = lease != null ? lease : new Lease(now);
            l.renewedAt = now;
            l.files.add(fileId);
            return l;
        });
    }

    /** Removes a file from the client's lease; a lease with no files left is dropped. */
    public void release(long clientId, long fileId) {
        leases.computeIfPresent(clientId, (k, l) -> {
            l.files.remove(fileId);
            return l.files.isEmpty() ? null : l;
        });
    }

    /** Renews every lease of the client; a client without open files has nothing to renew. */
    public void renew(long clientId) {
        long now = clock.millis();
        leases.computeIfPresent(clientId, (k, l) -> {
            l.renewedAt = now;
            return l;
        });
    }

    /** True when the client holds a lease renewed within the timeout. */
    public boolean isLive(long clientId) {
        Lease l = leases.get(clientId);
        return l != null && clock.millis() - l.renewedAt <= timeoutMs;
    }

    /** Milliseconds since the client last renewed, or -1 without a lease. */
    public long silenceMs(long clientId) {
        Lease l = leases.get(clientId);
        return l == null ? -1 : clock.millis() - l.renewedAt;
    }

    /** Number of files under lease. */
    public int fileCount() {
        int n = 0;
        for (Lease l : leases.values()) {
            n += l.files.size();
        }
        return n;
    }

    /** Removes and returns the leases not renewed within the timeout. */
    public List<Expired> expire() {
        long now = clock.millis();
        List<Expired> out = new ArrayList<>();
        for (Long clientId : leases.keySet()) {
            leases.computeIfPresent(clientId, (k, l) -> {
                long silence = now - l.renewedAt;
                if (silence <= timeoutMs) {
                    return l;
                }
                out.add(new Expired(k, silence, List.copyOf(l.files)));
                return null;
            });
        }
        return out;
    }
}
