package io.tarn.client.random;

/** Something wrong at quiescence, with the client whose history explains it (-1: none in particular). */
record Problem(String text, int client) {
}
