#include "protocol/item.hpp"

#include "engine/core/identifier.hpp"
#include "engine/core/snbt.hpp"

namespace emote::protocol {

core::result<api::item_stack, std::string> parse_item(std::string_view text) {
  api::item_stack stack;
  std::size_t first = 0;
  while (first < text.size() && (text[first] == ' ' || text[first] == '\t' || text[first] == '\r' ||
                                 text[first] == '\n')) {
    ++first;
  }
  if (first == text.size()) {
    return stack; // empty (also all-whitespace)
  }
  if (text[first] != '{') {
    auto id = core::parse_resource_location(text);
    if (!id || id->back() == ':') {
      return core::failure{std::string("must be an item id or an item stack SNBT compound")};
    }
    if (*id == "minecraft:air") {
      return stack;
    }
    stack.snbt = "{id:\"" + *id + "\",count:1}";
    stack.id = std::move(*id);
    return stack;
  }
  auto parsed = core::parse_compound_snbt(text);
  if (!parsed) {
    return core::failure{"invalid compound SNBT: " + parsed.error()};
  }
  std::string id;
  if (std::string problem = core::check_item_stack(*parsed, &id); !problem.empty()) {
    return core::failure{"invalid item stack: " + problem};
  }
  if (id == "minecraft:air") {
    return stack;
  }
  stack.snbt.assign(text);
  stack.id = std::move(id);
  if (const core::nbt_tag* components = parsed->find("components");
      components != nullptr && components->type == core::nbt_type::compound_tag) {
    if (const core::nbt_tag* charged = components->compound.find("minecraft:charged_projectiles");
        charged != nullptr && charged->type == core::nbt_type::list_tag && !charged->list.empty()) {
      stack.charged = true;
    }
  }
  return stack;
}

} // namespace emote::protocol
