package emotesim.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import org.junit.jupiter.api.Test;

/** render.md §6.1 on literal frames: the audiences form reads as the same frame with to lists. */
class FrameParseTest {
  // AA== is 0x00, XAE= is 0x5c 0x01, LwID is 0x2f 0x02 0x03.
  static final String TO_FORM = """
      {"op":"frame","tick":7,"events":[],"packets":[
       {"to":["alice","bob"],"protocol":769,"data":"AA=="},
       {"to":["carol"],"protocol":775,"data":"XAE="},
       {"to":["alice","bob"],"protocol":769,"data":"LwID"},
       {"to":["bob","carol"],"protocol":769,"data":"AA=="}]}""";
  static final String AUDIENCE_FORM = """
      {"op":"frame","tick":7,"events":[],"audiences":[["alice","bob"],["carol"],["bob","carol"]],
       "packets":[
       {"audience":0,"protocol":769,"data":"AA=="},
       {"audience":1,"protocol":775,"data":"XAE="},
       {"audience":0,"protocol":769,"data":"LwID"},
       {"audience":2,"protocol":769,"data":"AA=="}]}""";

  static Frame parse(String json) {
    return Client.parseFrame(JsonParser.parseString(json).getAsJsonObject());
  }

  @Test
  void audiencesGiveEveryViewerThePacketsOfToLists() {
    Frame to = parse(TO_FORM);
    Frame audiences = parse(AUDIENCE_FORM);
    for (String player : List.of("alice", "bob", "carol", "dave")) {
      List<PacketEntry> a = audiences.packetsFor(player);
      List<PacketEntry> t = to.packetsFor(player);
      assertEquals(t.size(), a.size(), player);
      for (int i = 0; i < t.size(); i++) {
        assertEquals(t.get(i).to(), a.get(i).to(), player);
        assertEquals(t.get(i).protocol(), a.get(i).protocol(), player);
        assertArrayEquals(t.get(i).data(), a.get(i).data(), player);
      }
    }
    List<PacketEntry> bob = audiences.packetsFor("bob");
    assertEquals(3, bob.size());
    assertArrayEquals(new byte[] {0x2f, 0x02, 0x03}, bob.get(1).data());
    assertEquals(List.of("bob", "carol"), bob.get(2).to());
    assertEquals(7, audiences.tick());
  }

  @Test
  void aBadAudienceIndexNamesTheTickAndTheIndex() {
    for (String index : List.of("3", "-1", "0.5", "\"0\"", "true", "1e0")) {
      JsonObject bad = JsonParser.parseString(AUDIENCE_FORM).getAsJsonObject();
      bad.getAsJsonArray("packets").get(0).getAsJsonObject().add("audience", JsonParser.parseString(index));
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Client.parseFrame(bad));
      assertTrue(e.getMessage().contains("tick 7") && e.getMessage().contains("audience " + index)
          && e.getMessage().contains("3 audiences"), e.getMessage());
    }
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> parse(
        "{\"op\":\"frame\",\"tick\":8,\"events\":[],\"packets\":[{\"audience\":0,\"protocol\":769,\"data\":\"AA==\"}]}"));
    assertTrue(none.getMessage().contains("tick 8") && none.getMessage().contains("0 audiences"), none.getMessage());
  }
}
