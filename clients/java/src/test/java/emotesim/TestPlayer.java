package emotesim;

import emotesim.netty.BundleTracker;
import emotesim.netty.ChannelSink;
import emotesim.netty.Forwarder;
import emotesim.netty.PlayerSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * One player's channel for the tests: a flush counter at the head, then the {@link ChannelSink}'s
 * BundleTracker that the backend's packets pass; the forwarder writes below the tracker.
 */
final class TestPlayer implements PlayerSink {
  final EmbeddedChannel channel;
  final BundleTracker tracker;
  final ChannelSink sink;
  boolean play = true;
  int flushes;

  TestPlayer(Supplier<Forwarder> forwarder, String key, int bundleId) {
    ChannelOutboundHandlerAdapter counter = new ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(ChannelHandlerContext ctx) {
        flushes++;
        ctx.flush();
      }
    };
    channel = new EmbeddedChannel(counter);
    tracker = new BundleTracker(bundleId, () -> forwarder.get().release(key));
    sink = ChannelSink.install(channel, null, tracker, () -> play);
  }

  @Override
  public EventExecutor eventLoop() {
    return sink.eventLoop();
  }

  @Override
  public boolean inPlay() {
    return sink.inPlay();
  }

  @Override
  public boolean inBundle() {
    return sink.inBundle();
  }

  @Override
  public void write(ByteBuf packet) {
    sink.write(packet);
  }

  @Override
  public void flush() {
    sink.flush();
  }

  @Override
  public void playResumed() {
    sink.playResumed();
  }

  /** The backend writes a packet through the whole pipeline. */
  void backend(int... bytes) {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    channel.writeAndFlush(io.netty.buffer.Unpooled.wrappedBuffer(b));
  }

  /** Everything written so far, as hex strings, releasing the buffers. */
  List<String> drain() {
    channel.runPendingTasks();
    List<String> out = new ArrayList<>();
    ByteBuf b;
    while ((b = channel.readOutbound()) != null) {
      out.add(ByteBufUtil.hexDump(b));
      b.release();
    }
    return out;
  }
}
