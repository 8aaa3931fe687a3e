package emotesim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import emotesim.client.Frame;
import emotesim.client.PacketEntry;
import emotesim.client.PacketIds;
import emotesim.netty.BundleTracker;
import emotesim.netty.ChannelSink;
import emotesim.netty.Forwarder;
import emotesim.netty.HiddenPlayerHandler;
import emotesim.netty.HiddenPlayers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The pipeline layout the README and the guide's recipes give: {@code ChannelSink.install(channel,
 * ENCODER, ...)} first, then the {@code HiddenPlayerHandler} added before the same handler. The
 * backend's packets (leaving the host's encoder as bytes) pass the hidden-player filter and then
 * the bundle tracker; emote-sim's entries enter below the tracker and pass neither. The host's
 * encoder is stood in for by a pass-through handler of that name (a plain Netty handler).
 */
class PipelineLayoutTest {
  /** protocol 769's ids (ClientTest checks them against the welcome). */
  static final PacketIds IDS = new PacketIds(769, "1.21.4", 0, 1, 0x5d, 0x47, 0x60, 0, 0);
  /** entity_metadata of entity 42: shared flags (index 0, byte serializer 0) 0x02, end 0xff. */
  static final String VISIBLE = "5d2a000002ff";
  static final String INVISIBLE = "5d2a000022ff";

  @Test
  void theBackendsPacketsPassTheFilterAndTheTrackerAndEmoteSimsPassNeither() {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.pipeline().addLast("encoder", new ChannelOutboundHandlerAdapter());
    Forwarder[] fw = new Forwarder[1];
    BundleTracker tracker = new BundleTracker(IDS.bundleDelimiter(), () -> fw[0].release("alice"));
    ChannelSink sink = ChannelSink.install(ch, "encoder", tracker, () -> true);
    HiddenPlayers hidden = new HiddenPlayers(k -> null);
    HiddenPlayerHandler filter = new HiddenPlayerHandler(IDS, hidden);
    ch.pipeline().addBefore("encoder", "emote-sim-hidden", filter);
    fw[0] = new Forwarder(Map.of("alice", sink)::get, new Forwarder.Recovery() {
      @Override
      public CompletableFuture<Long> renderReset(String player) {
        return CompletableFuture.completedFuture(0L);
      }

      @Override
      public CompletableFuture<Long> resync(String player) {
        return CompletableFuture.completedFuture(0L);
      }
    }, 100);
    hidden.set(42, true, true);

    backend(ch, VISIBLE); // the backend's metadata for hidden player 42: 0x20 ORed in
    // An entry of emote-sim's with the same bytes (it never sends such, but if it passed the
    // filter it would be rewritten): written as it is.
    fw[0].accept(new Frame(1, List.of(), List.of(
        new PacketEntry(List.of("alice"), 769, ByteBufUtil.decodeHexDump(VISIBLE))), 0));
    ch.runPendingTasks();
    assertEquals(List.of(INVISIBLE, VISIBLE), out(ch));
    assertEquals(1, filter.rewritten());

    // The backend's delimiter passes the tracker (a bundle opens); emote-sim's own do not count.
    backend(ch, "00");
    assertTrue(tracker.open());
    fw[0].accept(new Frame(2, List.of(), List.of(new PacketEntry(List.of("alice"), 769, new byte[] {0}),
        new PacketEntry(List.of("alice"), 769, new byte[] {0})), 0));
    ch.runPendingTasks();
    assertEquals(List.of("00"), out(ch), "held while the backend's bundle is open");
    backend(ch, "00");
    assertEquals(List.of("00", "00", "00"), out(ch), "the bundle closed, then emote-sim's pair");
    assertTrue(!tracker.open());
    ch.finishAndReleaseAll();
  }

  static void backend(EmbeddedChannel ch, String hex) {
    ch.writeAndFlush(Unpooled.wrappedBuffer(ByteBufUtil.decodeHexDump(hex)));
    ch.runPendingTasks();
  }

  static List<String> out(EmbeddedChannel ch) {
    List<String> out = new ArrayList<>();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      out.add(ByteBufUtil.hexDump(b));
      b.release();
    }
    return out;
  }
}
