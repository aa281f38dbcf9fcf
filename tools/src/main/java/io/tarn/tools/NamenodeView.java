package io.tarn.tools;

import io.tarn.common.protocol.AdminProtocol.ClusterStatus;

/**
 * One namenode as {@code tarn status} found it: its partition and address, and either its own
 * CLUSTER_STATUS or why it did not answer.
 *
 * @param status null when the namenode did not answer
 * @param error  the reason it did not answer, or null when it did
 */
record NamenodeView(int partition, String address, ClusterStatus status, String error) {
    static NamenodeView up(int partition, String address, ClusterStatus status) {
        return new NamenodeView(partition, address, status, null);
    }

    static NamenodeView down(int partition, String address, String error) {
        return new NamenodeView(partition, address, null, error);
    }

    boolean up() {
        return status != null;
    }

    /** "namenode 1 (host:port)", for messages. */
    String name() {
        return "namenode " + partition + " (" + address + ")";
    }
}
