package emotesim.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Tracks the parity of the backend's {@code bundle_delimiter} packets on their way to the client
 * (render.md §7: the client treats the delimiter as a toggle). Put it where the backend's packets
 * pass as whole, uncompressed packets ({@link ByteBuf}: packet id varint, fields), and let the
 * {@link PlayerSink} write emote-sim's packets into the pipeline below it, so that they do not count.
 * When a bundle closes, {@code onClose} runs (on the event loop) — give it
 * {@link Forwarder#release(String)}.
 */
public final class BundleTracker extends ChannelOutboundHandlerAdapter {
  private volatile int bundleId;
  private final Runnable onClose;
  private boolean open;

  /** {@code bundleId}: the version's bundle_delimiter id ({@code PacketIds#bundleDelimiter()}). */
  public BundleTracker(int bundleId, Runnable onClose) {
    this.bundleId = bundleId;
    this.onClose = onClose;
  }

  /** After a protocol change (a switch to a backend of another version). */
  public void bundleId(int id) {
    this.bundleId = id;
  }

  /** Whether a backend bundle is open (call on the event loop). */
  public boolean open() {
    return open;
  }

  /** The connection left play (configuration): no bundle is open any more. */
  public void reset() {
    open = false;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
    boolean closed = false;
    if (msg instanceof ByteBuf b) {
      int[] id = Varint.read(b, b.readerIndex());
      if (id != null && id[0] == bundleId && id[1] == b.readableBytes()) {
        open = !open;
        closed = !open;
      }
    }
    ctx.write(msg, promise);
    if (closed) {
      onClose.run();
    }
  }
}
