package io.tarn.common.config;

/** How connections authenticate: see {@code tarn.security.authentication}. */
public enum AuthenticationMode {
    /** No authentication: any peer that reaches a port is served (trusted networks only). */
    NONE,
    /** A mutual challenge-response over a shared key before any other frame. */
    SECRET
}
