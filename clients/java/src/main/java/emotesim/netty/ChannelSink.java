package emotesim.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import java.util.function.BooleanSupplier;

/**
 * A {@link PlayerSink} over a player's Netty channel: a {@link BundleTracker} in its pipeline that
 * the backend's packets pass, and emote-sim's packets written just below it (towards the socket),
 * so they reach the connection's compression and framing but do not count as the backend's.
 */
public final class ChannelSink implements PlayerSink {
  private final Channel channel;
  private final BundleTracker tracker;
  private final BooleanSupplier inPlay;

  private ChannelSink(Channel channel, BundleTracker tracker, BooleanSupplier inPlay) {
    this.channel = channel;
    this.tracker = tracker;
    this.inPlay = inPlay;
  }

  /**
   * Add {@code tracker} to {@code channel}'s pipeline as {@code "emote-sim-bundles"}, before the
   * handler named {@code before} (towards the socket: where encoded packets flow as ByteBufs), or
   * last when {@code before} is null. {@code inPlay}: whether the connection is in the play state.
   */
  public static ChannelSink install(Channel channel, String before, BundleTracker tracker,
                                    BooleanSupplier inPlay) {
    if (before == null) {
      channel.pipeline().addLast("emote-sim-bundles", tracker);
    } else {
      channel.pipeline().addBefore(before, "emote-sim-bundles", tracker);
    }
    return new ChannelSink(channel, tracker, inPlay);
  }

  public BundleTracker tracker() {
    return tracker;
  }

  @Override
  public EventExecutor eventLoop() {
    return channel.eventLoop();
  }

  @Override
  public boolean inPlay() {
    return channel.isActive() && inPlay.getAsBoolean();
  }

  @Override
  public boolean inBundle() {
    return tracker.open();
  }

  /** Written below the tracker; released when the tracker left the pipeline (the channel closed). */
  @Override
  public void write(ByteBuf packet) {
    ChannelHandlerContext ctx = channel.pipeline().context(tracker);
    if (ctx == null) {
      packet.release();
      return;
    }
    ctx.write(packet, ctx.voidPromise());
  }

  @Override
  public void flush() {
    ChannelHandlerContext ctx = channel.pipeline().context(tracker);
    if (ctx != null) {
      ctx.flush();
    }
  }

  /** Forgets a bundle the tracker saw open (a switch ended the backend that opened it). */
  @Override
  public void playResumed() {
    tracker.reset();
  }

  @Override
  public ByteBufAllocator alloc() {
    return channel.alloc();
  }
}
