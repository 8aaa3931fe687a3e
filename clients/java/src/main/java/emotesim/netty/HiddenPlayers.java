package emotesim.netty;

import com.google.gson.JsonObject;
import emotesim.client.Frame;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Which players are hidden (render.md §5.5), from the frames' {@code player.visibility} events: a
 * player is hidden from a {@code hidden: true} until the next {@code hidden: false}, and its
 * equipment is blank while the latest event said {@code equipment: "blank"}. Kept by entity id,
 * which the host knows ({@code entityIdOf}: the player key's entity id, or null). Give
 * {@link #accept} to {@code Client.onFrame}; {@link HiddenPlayerHandler} reads it from any thread.
 */
public final class HiddenPlayers implements Consumer<Frame> {
  private final Function<String, Integer> entityIdOf;
  private final Set<Integer> hidden = ConcurrentHashMap.newKeySet();
  private final Set<Integer> blank = ConcurrentHashMap.newKeySet();

  public HiddenPlayers(Function<String, Integer> entityIdOf) {
    this.entityIdOf = entityIdOf;
  }

  @Override
  public void accept(Frame frame) {
    for (JsonObject e : frame.events("player.visibility")) {
      Integer id = entityIdOf.apply(e.get("player").getAsString());
      if (id == null) {
        continue;
      }
      set(id, e.get("hidden").getAsBoolean(),
          e.has("equipment") && "blank".equals(e.get("equipment").getAsString()));
    }
  }

  /** Set an entity's state directly (a backend plugin that knows it, or a test). */
  public void set(int entityId, boolean isHidden, boolean blankEquipment) {
    if (isHidden) {
      hidden.add(entityId);
    } else {
      hidden.remove(entityId);
    }
    if (blankEquipment) {
      blank.add(entityId);
    } else {
      blank.remove(entityId);
    }
  }

  /** Forget an entity (its player left). */
  public void forget(int entityId) {
    hidden.remove(entityId);
    blank.remove(entityId);
  }

  public boolean hidden(int entityId) {
    return hidden.contains(entityId);
  }

  public boolean blankEquipment(int entityId) {
    return blank.contains(entityId);
  }
}
