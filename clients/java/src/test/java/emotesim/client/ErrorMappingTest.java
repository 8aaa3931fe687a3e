package emotesim.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * docs/guide/bots.md, Errors: the error object's names are those of the JavaScript and Python
 * clients, on the literal replies of clients/error-replies.json, which their tests read too.
 */
class ErrorMappingTest {
  @Test
  void sameMappingAsTheOtherClients() throws Exception {
    Path root = Path.of(System.getProperty("emote.sim.root", "../..")).toAbsolutePath().normalize();
    JsonObject file = JsonParser.parseString(Files.readString(root.resolve("clients/error-replies.json")))
        .getAsJsonObject();
    int n = 0;
    for (JsonElement c : file.getAsJsonArray("cases")) {
      JsonObject want = c.getAsJsonObject();
      JsonObject reply = want.getAsJsonObject("reply");
      EmoteSimException e = new EmoteSimException(reply);
      JsonElement ticks = want.get("remaining_ticks");
      assertEquals(
          List.of(s(want, "code"), s(want, "text"), s(want, "detail"), s(want, "string"), s(want, "path"),
              s(want, "op"), s(want, "player"), s(want, "emote"),
              ticks == null ? OptionalLong.empty() : OptionalLong.of(ticks.getAsLong())),
          Arrays.asList(e.code(), e.text(), e.detail(), e.getMessage(), e.path(), e.op(), e.player(), e.emote(),
              e.remainingTicks()),
          s(want, "code"));
      assertSame(reply, e.reply());
      n++;
    }
    assertEquals(3, n);
  }

  private static String s(JsonObject o, String key) {
    return o.get(key).getAsString();
  }
}
