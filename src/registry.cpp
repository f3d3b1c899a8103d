// The public registry table, built from src/variants.def.
#include <iterator>

#include "internal.hpp"

namespace xpose {
namespace {

constexpr variant_info table[] = {
#define XPOSE_VARIANT(name, launcher, kind, transposes, sizes, cc, pattern, block, desc) \
  {#name, desc, variant_kind::kind, transposes, sizes, cc, pattern, block},
#include "variants.def"
#undef XPOSE_VARIANT
};

}  // namespace

variant_list variants() noexcept { return {table, std::size(table)}; }

const variant_info* find_variant(std::string_view name) noexcept {
  for (const auto& v : table)
    if (name == v.name) return &v;
  return nullptr;
}

}  // namespace xpose
