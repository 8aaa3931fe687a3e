package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import emotesim.client.Client;
import emotesim.client.ConnectionClosedException;
import emotesim.client.ConnectionListener;
import emotesim.client.EmoteSimException;
import emotesim.client.Frame;
import emotesim.client.PlayerState;
import emotesim.client.Subscription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * emote-sim killed and started again on the same port: the request in flight fails with a clear
 * exception, requests while disconnected fail at once, and the client reconnects, joins its players
 * again, subscribes again and resyncs, after which the viewer's packets flow again (on both
 * clocks). A restarted server that refuses the hello, or none at all, ends the retries with
 * {@code reconnectFailed}.
 */
class ReconnectTest {
  /** Records what the client tells its ConnectionListener, in order. */
  static ConnectionListener recorder(BlockingQueue<String> happened, List<Throwable> causes) {
    return new ConnectionListener() {
      @Override
      public void disconnected(String reason) {
        happened.add("disconnected " + reason);
      }

      @Override
      public void reconnected(JsonObject welcome, List<String> rejoined, long viewers) {
        happened.add("reconnected " + rejoined + " viewers " + viewers);
      }

      @Override
      public void reconnectFailed(Throwable cause) {
        causes.add(cause);
        happened.add("failed");
      }
    };
  }

  @ParameterizedTest
  @ValueSource(strings = {"manual", "realtime"})
  void restartReconnectsRejoinsAndResyncs(String clock) throws Exception {
    try (ServerProcess s = ServerProcess.start(clock)) {
      String address = s.tcp;
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
      try (Client c = Client.connect(address, new Client.Options().timeout(Duration.ofSeconds(5))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(400), Duration.ofSeconds(30)))) {
        c.onConnection(recorder(happened, new java.util.concurrent.CopyOnWriteArrayList<>()));
        c.onFrame(frames::add);
        c.subscribe(Subscription.of().packets(true)).get(10, TimeUnit.SECONDS);
        c.join("alice", PlayerState.of().position(0, 64, 0).protocol(769).entityId(7).name("alice"),
            true).get(10, TimeUnit.SECONDS);
        // The state to restore is the join's fields with the later updates merged.
        c.update("alice", PlayerState.of().protocol(775)).get(10, TimeUnit.SECONDS);

        // A request in flight: the server is stopped (SIGSTOP) so it cannot answer, then killed.
        s.signal("STOP");
        CompletableFuture<Void> inFlight = c.ping();
        ServerProcess.sleep(100);
        assertFalse(inFlight.isDone());
        s.kill();
        Throwable t = Client.cause(org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> inFlight.get(10, TimeUnit.SECONDS)));
        ConnectionClosedException closed = assertInstanceOf(ConnectionClosedException.class, t);
        assertTrue(closed.getMessage().contains("before the reply to ping"), closed.getMessage());
        assertEquals("disconnected closed", happened.poll(10, TimeUnit.SECONDS));
        // While it is down, requests fail at once rather than wait.
        Throwable down = Client.cause(org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> c.ping().get(1, TimeUnit.SECONDS)));
        assertTrue(down.getMessage().contains("reconnecting"), down.getMessage());
        assertFalse(c.connected());

        ServerProcess.sleep(300); // a few failed tries with backoff
        s.listen(address);
        assertEquals("reconnected [alice] viewers 1", happened.poll(20, TimeUnit.SECONDS));
        assertTrue(c.connected());
        // The new server knows alice, a viewer on her last protocol, and the subscription is back.
        JsonObject state = c.state("alice").get(10, TimeUnit.SECONDS);
        assertEquals("alice", state.getAsJsonArray("players").get(0).getAsJsonObject().get("player").getAsString());
        assertEquals(clock.equals("manual"), c.manualClock());
        frames.clear();
        c.play("alice", "sample:wave").get(10, TimeUnit.SECONDS);
        List<Integer> protocols = new java.util.ArrayList<>();
        if (clock.equals("manual")) {
          c.step(2).get(10, TimeUnit.SECONDS);
          c.ping().get(10, TimeUnit.SECONDS); // the frames of the steps came before this reply
          for (Frame f : frames) {
            f.packetsFor("alice").forEach(p -> protocols.add(p.protocol()));
          }
        } else {
          // The realtime clock ticks on its own: wait for the frame with the emote's spawns.
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (protocols.isEmpty() && System.nanoTime() < deadline) {
            Frame f = frames.poll(100, TimeUnit.MILLISECONDS);
            if (f != null) {
              f.packetsFor("alice").forEach(p -> protocols.add(p.protocol()));
            }
          }
        }
        assertFalse(protocols.isEmpty(), "the subscription with packets was restored");
        assertEquals(java.util.Set.of(775), java.util.Set.copyOf(protocols));
      }
    }
  }

  /**
   * The server stays up and closes the connection (its idle timeout): a player joined with
   * keep_on_disconnect is still there, so joining it again is player_exists and the client brings
   * it up to date with an update instead; a player joined without it left and is joined again.
   */
  @Test
  void aDropWithTheServerUpUpdatesKeptPlayersAndRejoinsTheOthers() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual", "--limits-idle-timeout-seconds", "1")) {
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      List<Throwable> causes = new java.util.concurrent.CopyOnWriteArrayList<>();
      try (Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofSeconds(5))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ZERO))) {
        c.onConnection(recorder(happened, causes));
        c.join("kept", PlayerState.of().position(0, 64, 0).protocol(769).entityId(7), true)
            .get(10, TimeUnit.SECONDS);
        c.join("plain", PlayerState.of().position(5, 64, 0)).get(10, TimeUnit.SECONDS);
        c.update("kept", PlayerState.of().yaw(45)).get(10, TimeUnit.SECONDS);
        // Neither subscribed nor sending: after a second the server says bye and closes.
        assertEquals("disconnected idle_timeout", happened.poll(10, TimeUnit.SECONDS));
        assertEquals("reconnected [kept, plain] viewers 1", happened.poll(10, TimeUnit.SECONDS),
            String.valueOf(causes));
        JsonObject state = c.state(null).get(5, TimeUnit.SECONDS);
        List<String> keys = new java.util.ArrayList<>();
        state.getAsJsonArray("players").forEach(p -> keys.add(p.getAsJsonObject().get("player").getAsString()));
        assertEquals(List.of("kept", "plain"), keys);
      }
    }
  }

  /**
   * The tries back off: while the port accepts and at once closes every connection (emote-sim
   * gone, something else there), the gaps between tries double from the initial delay up to the
   * maximum; then emote-sim is back and the client reconnects.
   */
  @Test
  void triesBackOffUpToTheMaximumDelay() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual")) {
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      try (Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofSeconds(5))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(400), Duration.ZERO))) {
        c.onConnection(recorder(happened, new java.util.concurrent.CopyOnWriteArrayList<>()));
        int port = Integer.parseInt(s.tcp.substring(s.tcp.lastIndexOf(':') + 1));
        s.kill();
        List<Long> tries = new java.util.ArrayList<>();
        try (java.net.ServerSocket dead = new java.net.ServerSocket()) {
          dead.setReuseAddress(true);
          dead.bind(new java.net.InetSocketAddress("127.0.0.1", port));
          dead.setSoTimeout(100);
          long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
          while (System.nanoTime() < end) {
            try (java.net.Socket t = dead.accept()) {
              tries.add(System.nanoTime());
            } catch (java.net.SocketTimeoutException e) {
              // no try in this 100 ms
            }
          }
        }
        List<Long> gaps = new java.util.ArrayList<>();
        for (int i = 1; i < tries.size(); i++) {
          gaps.add(TimeUnit.NANOSECONDS.toMillis(tries.get(i) - tries.get(i - 1)));
        }
        // 50, 100, 200, 400, 400 ... ms after the drop: about 6 tries in 2 s (40 without backoff).
        assertTrue(tries.size() >= 3 && tries.size() <= 10, "tries in 2 s: " + tries.size() + ", gaps " + gaps);
        assertTrue(gaps.get(gaps.size() - 1) >= 300, "the last gaps reach the maximum: " + gaps);
        assertTrue(gaps.stream().allMatch(g -> g <= 1000), "never beyond the maximum (+ load): " + gaps);
        assertEquals("disconnected closed", happened.poll(1, TimeUnit.SECONDS));
        s.listen(s.tcp);
        assertEquals("reconnected [] viewers 0", happened.poll(20, TimeUnit.SECONDS));
      }
    }
  }

  /**
   * The server stalls (SIGSTOP) while the client restores 5,000 players after a restart (joins one
   * at a time: at least a loopback round trip each, so 150 ms or more even on a fast machine, where
   * 2,000 once finished within the 150 ms this test used to wait): the join in flight times out,
   * the client drops that half-restored connection and tries again, and once the server runs again
   * the restore completes.
   */
  @Test
  void aStallWhileRestoringDropsTheConnectionAndTriesAgain() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual")) {
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      List<Throwable> causes = new java.util.concurrent.CopyOnWriteArrayList<>();
      try (Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofMillis(1000))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ZERO))) {
        c.onConnection(recorder(happened, causes));
        List<CompletableFuture<Void>> joins = new java.util.ArrayList<>();
        for (int i = 0; i < 5000; i++) {
          joins.add(c.join("p" + i, PlayerState.of().position(i, 64, 0)));
        }
        CompletableFuture.allOf(joins.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        s.kill();
        assertEquals("disconnected closed", happened.poll(10, TimeUnit.SECONDS));
        s.listen(s.tcp);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!c.connected() && System.nanoTime() < deadline) {
          Thread.onSpinWait();
        }
        assertTrue(c.connected());
        ServerProcess.sleep(20); // the restore's joins are under way, far from done
        s.signal("STOP");
        assertEquals("disconnected closed", happened.poll(10, TimeUnit.SECONDS),
            "the half-restored connection is dropped, not kept silently");
        s.signal("CONT");
        String back = happened.poll(60, TimeUnit.SECONDS);
        assertTrue(back != null && back.startsWith("reconnected [p0, p1, "), back + " " + causes);
        assertEquals(5000, c.players().size());
      }
    }
  }

  /** A server that stops answering (SIGSTOP): the request fails after the timeout, not never. */
  @Test
  void aStalledServerTimesRequestsOut() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual");
         Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofMillis(400)))) {
      c.ping().get(5, TimeUnit.SECONDS);
      s.signal("STOP");
      long start = System.nanoTime();
      Throwable t = Client.cause(org.junit.jupiter.api.Assertions.assertThrows(
          java.util.concurrent.ExecutionException.class, () -> c.ping().get(5, TimeUnit.SECONDS)));
      long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      assertInstanceOf(java.util.concurrent.TimeoutException.class, t);
      assertTrue(t.getMessage().contains("no reply to ping"), t.getMessage());
      assertTrue(waited >= 350 && waited < 4000, "failed after " + waited + " ms");
      s.signal("CONT");
      c.ping().get(5, TimeUnit.SECONDS); // the connection itself is fine
    }
  }

  @Test
  void aRefusedHelloEndsTheRetries() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual")) {
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      List<Throwable> causes = new java.util.concurrent.CopyOnWriteArrayList<>();
      try (Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofSeconds(5))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ZERO))) {
        c.onConnection(recorder(happened, causes));
        s.kill();
        assertEquals("disconnected closed", happened.poll(10, TimeUnit.SECONDS));
        // It comes back wanting a controller token this client does not have.
        s.extra.addAll(List.of("--auth-controller-token", "s3cret"));
        s.listen(s.tcp);
        assertEquals("failed", happened.poll(20, TimeUnit.SECONDS));
        EmoteSimException refused = assertInstanceOf(EmoteSimException.class, causes.get(0));
        assertEquals("unauthorized", refused.code());
        // No further tries: it stays down, and says so at once.
        ServerProcess.sleep(600);
        assertFalse(c.connected());
        assertEquals(null, happened.poll());
        Throwable down = Client.cause(org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> c.ping().get(1, TimeUnit.SECONDS)));
        assertInstanceOf(ConnectionClosedException.class, down);
      }
    }
  }

  @Test
  void noServerWithinTheTimeoutEndsTheRetries() throws Exception {
    try (ServerProcess s = ServerProcess.start("manual")) {
      BlockingQueue<String> happened = new LinkedBlockingQueue<>();
      List<Throwable> causes = new java.util.concurrent.CopyOnWriteArrayList<>();
      try (Client c = Client.connect(s.tcp, new Client.Options().timeout(Duration.ofSeconds(5))
          .reconnect(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofMillis(800)))) {
        c.onConnection(recorder(happened, causes));
        long killed = System.nanoTime();
        s.kill();
        assertEquals("disconnected closed", happened.poll(10, TimeUnit.SECONDS));
        assertEquals("failed", happened.poll(10, TimeUnit.SECONDS));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        assertTrue(waited >= 500 && waited < 5000, "gave up after " + waited + " ms");
        assertTrue(causes.get(0).getMessage().contains("gave up"), causes.get(0).getMessage());
        assertFalse(c.connected());
      }
    }
  }
}
