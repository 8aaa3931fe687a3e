package emotesim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import emotesim.netty.BundleTracker;
import emotesim.netty.Forwarder;
import emotesim.netty.PlayerSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The forwarder on EmbeddedChannels: order, one flush per frame, bundles, play state, bounds. */
class ForwarderTest {
  static final int BUNDLE = 0x00;

  static PacketEntry entry(int protocol, String hex, String... to) {
    return new PacketEntry(List.of(to), protocol, ByteBufUtil.decodeHexDump(hex));
  }

  static Frame frame(long tick, PacketEntry... entries) {
    return new Frame(tick, List.of(), List.of(entries), 0);
  }

  final Map<String, TestPlayer> players = new HashMap<>();
  final Forwarder[] forwarder = new Forwarder[1];
  final List<String> resets = new ArrayList<>();
  CompletableFuture<Long> nextReset = CompletableFuture.completedFuture(0L);

  Forwarder forwarder(int maxQueued, String... keys) {
    for (String k : keys) {
      players.put(k, new TestPlayer(() -> forwarder[0], k, BUNDLE));
    }
    forwarder[0] = new Forwarder(players::get, new Forwarder.Recovery() {
      @Override
      public CompletableFuture<Long> renderReset(String player) {
        resets.add("reset " + player);
        return nextReset;
      }

      @Override
      public CompletableFuture<Long> resync(String player) {
        resets.add("resync " + player);
        return nextReset;
      }
    }, maxQueued);
    return forwarder[0];
  }

  @Test
  void eachPlayerGetsItsEntriesInListOrderWithOneFlush() {
    Forwarder f = forwarder(100, "alice", "bob");
    f.accept(frame(1, entry(769, "5d01", "alice", "bob"), entry(769, "5d02", "bob"),
        entry(775, "6303", "alice"), entry(769, "5d04", "carol", "alice")));
    TestPlayer alice = players.get("alice");
    TestPlayer bob = players.get("bob");
    assertEquals(List.of("5d01", "6303", "5d04"), alice.drain());
    assertEquals(List.of("5d01", "5d02"), bob.drain());
    assertEquals(1, alice.flushes);
    assertEquals(1, bob.flushes);
    assertEquals(5, f.written());
  }

  @Test
  void eachRecipientGetsAFreshBuffer() {
    forwarder(100, "alice", "bob");
    forwarder[0].accept(frame(1, entry(769, "5d01", "alice", "bob")));
    players.get("alice").channel.runPendingTasks();
    players.get("bob").channel.runPendingTasks();
    ByteBuf a = players.get("alice").channel.readOutbound();
    ByteBuf b = players.get("bob").channel.readOutbound();
    assertNotSame(a, b);
    a.setByte(0, 0x7f); // one recipient's buffer changed by its pipeline leaves the other's alone
    assertEquals("5d01", ByteBufUtil.hexDump(b));
    a.release();
    b.release();
  }

  @Test
  void entriesWaitWhileTheBackendsBundleIsOpen() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    alice.backend(BUNDLE);
    alice.backend(0x42, 1);
    f.accept(frame(1, entry(769, "00", "alice"), entry(769, "01aa", "alice"), entry(769, "00", "alice")));
    f.accept(frame(2, entry(769, "5d05", "alice")));
    assertEquals(List.of("00", "4201"), alice.drain(), "nothing of emote-sim's inside the backend's bundle");
    alice.backend(0x42, 2);
    alice.backend(BUNDLE); // closes: the held entries follow at once, in order
    assertEquals(List.of("4202", "00", "00", "01aa", "00", "5d05"), alice.drain());
    // Parity: emote-sim's own delimiters did not toggle the tracker.
    assertTrue(!alice.tracker.open());
    f.accept(frame(3, entry(769, "5d06", "alice")));
    assertEquals(List.of("5d06"), alice.drain());
  }

  @Test
  void notInPlayDropsThenAsksForAResetAndSkipsFramesBeforeIt() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    alice.play = false; // configuration: a server switch
    f.accept(frame(10, entry(769, "5d01", "alice")));
    assertEquals(List.of(), alice.drain());
    assertEquals(List.of(), resets);
    alice.play = true;
    nextReset = new CompletableFuture<>();
    f.playResumed("alice");
    alice.drain();
    assertEquals(List.of("reset alice"), resets);
    f.accept(frame(11, entry(769, "5d02", "alice"))); // before the reset's reply: dropped
    assertEquals(List.of(), alice.drain());
    nextReset.complete(13L);
    f.accept(frame(12, entry(769, "5d03", "alice"))); // before the reset's tick: dropped
    f.accept(frame(13, entry(769, "5d04", "alice")));
    assertEquals(List.of("5d04"), alice.drain());
    assertEquals(List.of("reset alice"), resets);
    assertEquals(3, f.dropped());
  }

  @Test
  void playResumedAsksForAResetEvenWhenNoFrameCameMeanwhile() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    f.accept(frame(1, entry(769, "5d01", "alice")));
    assertEquals(List.of("5d01"), alice.drain());
    // A server switch while nothing changed: no frame found the connection out of play, but its
    // client lost the entity 5d01 made.
    nextReset = new CompletableFuture<>();
    f.playResumed("alice");
    alice.drain();
    assertEquals(List.of("reset alice"), resets);
    f.accept(frame(2, entry(769, "5d02", "alice"))); // before the reply: dropped
    nextReset.complete(4L);
    f.accept(frame(3, entry(769, "5d03", "alice"))); // before the reset's tick: dropped
    f.accept(frame(4, entry(769, "5d04", "alice")));
    assertEquals(List.of("5d04"), alice.drain());
    assertEquals(2, f.dropped());
  }

  @Test
  void playResumedForgetsTheOldBackendsOpenBundleAndWhatWaitedInIt() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    alice.backend(BUNDLE); // the old backend opened a bundle, then the switch cut it off
    f.accept(frame(1, entry(769, "5d01", "alice")));
    assertEquals(List.of("00"), alice.drain());
    nextReset = CompletableFuture.completedFuture(2L);
    f.playResumed("alice");
    alice.drain();
    assertTrue(!alice.tracker.open());
    f.accept(frame(2, entry(769, "5d02", "alice"))); // written, not held behind a bundle that is gone
    assertEquals(List.of("5d02"), alice.drain());
    assertEquals(1, f.dropped());
  }

  @Test
  void aSwitchWhileAResetIsInFlightAsksAgainAfterIt() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    CompletableFuture<Long> first = new CompletableFuture<>();
    nextReset = first;
    f.playResumed("alice");
    alice.drain();
    f.playResumed("alice"); // a second switch before the first reset's reply
    alice.drain();
    assertEquals(List.of("reset alice"), resets);
    CompletableFuture<Long> second = new CompletableFuture<>();
    nextReset = second;
    first.complete(3L);
    alice.drain(); // the first reply asks again at once
    assertEquals(List.of("reset alice", "reset alice"), resets);
    f.accept(frame(3, entry(769, "5d03", "alice"))); // after the first reset, before the second
    second.complete(5L);
    f.accept(frame(4, entry(769, "5d04", "alice")));
    f.accept(frame(5, entry(769, "5d05", "alice")));
    assertEquals(List.of("5d05"), alice.drain());
  }

  @Test
  void aFailedResetIsAskedAgain() {
    Forwarder f = forwarder(100, "alice");
    TestPlayer alice = players.get("alice");
    alice.play = false;
    f.accept(frame(1, entry(769, "5d01", "alice")));
    alice.drain();
    alice.play = true;
    nextReset = CompletableFuture.failedFuture(new IllegalStateException("disconnected"));
    f.accept(frame(2, entry(769, "5d02", "alice")));
    alice.drain();
    nextReset = CompletableFuture.completedFuture(3L);
    f.accept(frame(3, entry(769, "5d03", "alice"))); // asks again; dropped until the reply
    assertEquals(List.of(), alice.drain());
    f.accept(frame(4, entry(769, "5d04", "alice")));
    assertEquals(List.of("5d04"), alice.drain());
    assertEquals(List.of("reset alice", "reset alice"), resets);
  }

  @Test
  void queuedEntriesAreBounded() {
    Forwarder f = forwarder(4, "alice");
    TestPlayer alice = players.get("alice");
    nextReset = new CompletableFuture<>();
    // The event loop does not run: the third frame would pass 4 waiting entries. It is dropped at
    // once, and so is everything waiting (a reset replaces it), when the loop runs again.
    f.accept(frame(1, entry(769, "01", "alice"), entry(769, "02", "alice")));
    f.accept(frame(2, entry(769, "03", "alice"), entry(769, "04", "alice")));
    f.accept(frame(3, entry(769, "05", "alice")));
    f.accept(frame(4, entry(769, "06", "alice")));
    assertEquals(2, f.dropped());
    assertEquals(List.of(), alice.drain());
    assertEquals(List.of("resync alice"), resets);
    assertEquals(6, f.dropped());
    nextReset.complete(6L);
    f.accept(frame(5, entry(769, "07", "alice")));
    f.accept(frame(6, entry(769, "08", "alice")));
    assertEquals(List.of("08"), alice.drain());

    // Held in an open bundle: past the bound, dropped and reset.
    nextReset = CompletableFuture.completedFuture(20L);
    alice.backend(BUNDLE);
    f.accept(frame(7, entry(769, "09", "alice"), entry(769, "0a", "alice"), entry(769, "0b", "alice")));
    f.accept(frame(8, entry(769, "0c", "alice"), entry(769, "0d", "alice")));
    alice.backend(BUNDLE);
    assertEquals(List.of("00", "00"), alice.drain());
    assertEquals(List.of("resync alice", "resync alice"), resets);
    f.accept(frame(20, entry(769, "0e", "alice")));
    assertEquals(List.of("0e"), alice.drain());
  }

  @Test
  void playersOfOtherHostsAreIgnoredAndBoundsChecked() {
    Forwarder f = forwarder(10, "alice");
    f.accept(frame(1, entry(769, "01", "zed")));
    assertEquals(0, f.written());
    assertNull(players.get("zed"));
    assertThrows(IllegalArgumentException.class, () -> new Forwarder(k -> null, null, 0));
  }
}
