package io.tarn.tools.chaos.net;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A line echo server run inside a namespace by {@link NetworkLabTest}: {@code EchoServer ADDRESS PORT}
 * prints {@code ready} once listening, then answers every line of every connection with the same
 * line, one connection thread each.
 */
public final class EchoServer {
    private EchoServer() {
    }

    public static void main(String[] args) throws Exception {
        try (ServerSocket server = new ServerSocket(Integer.parseInt(args[1]), 16, InetAddress.getByName(args[0]))) {
            System.out.println("ready");
            System.out.flush();
            while (true) {
                Socket s = server.accept();
                Thread t = new Thread(() -> echo(s));
                t.setDaemon(true);
                t.start();
            }
        }
    }

    private static void echo(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                StandardCharsets.UTF_8))) {
            OutputStream out = s.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (Exception e) {
            // The peer went away: nothing to echo to.
        }
    }
}
