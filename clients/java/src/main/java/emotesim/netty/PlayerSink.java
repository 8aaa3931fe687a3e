package emotesim.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.concurrent.EventExecutor;

/**
 * What a host (a proxy or server plugin) provides for one player's connection so that a
 * {@link Forwarder} can write emote-sim's packets into it. Every method but {@link #eventLoop()} is
 * called on that event loop.
 */
public interface PlayerSink {
  /** The event loop of the player's Netty channel. */
  EventExecutor eventLoop();

  /**
   * Whether the connection is in the play state. False while it is in configuration (a server
   * switch): entries are then dropped, and a {@code render_reset} is asked for afterwards.
   */
  boolean inPlay();

  /**
   * Whether a bundle the backend opened ({@code bundle_delimiter}) is still open on this connection
   * (render.md §7; see {@link BundleTracker}). Entries are held until it closes.
   */
  boolean inBundle();

  /**
   * Write one packet (the packet id varint and its fields, uncompressed, no length prefix) where the
   * connection frames, compresses and encrypts it, without flushing. The sink owns {@code packet}.
   */
  void write(ByteBuf packet);

  /** Flush what was written. */
  void flush();

  /**
   * Called on the event loop by {@link Forwarder#playResumed}: the connection is in play again after
   * a switch. A sink that tracks the backend's bundles forgets one it saw open (the backend that
   * opened it is gone, and the client's bundle state went with the old play state).
   */
  default void playResumed() {}

  /** Where the per-recipient buffers come from (the channel's allocator, usually). */
  default ByteBufAllocator alloc() {
    return ByteBufAllocator.DEFAULT;
  }
}
