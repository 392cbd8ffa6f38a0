// The strict parser of the configuration table (src/core/config.cpp): sizes
// with K/M/G/T suffixes, integers, seconds, booleans, log levels, strings.
//
// Input: lines; a line's first byte picks the variable (modulo the number of
// variables in config_table.def), the rest is its value. Invariants: a size
// that parses prints (format_size) as a text that parses back to the same
// number; every error is a tilecomm::Error naming the variable.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "fuzz_common.hpp"

using namespace tilecomm;

namespace {

struct Env {
  std::vector<std::string> names;
  std::vector<std::string> values;
  std::vector<bool> set;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t bytes = 0;
  if (parse_size(text, bytes)) {
    std::size_t back = 0;
    FUZZ_CHECK(parse_size(format_size(bytes), back) && back == bytes, "size '%s' = %zu prints as '%s'",
               text.c_str(), bytes, format_size(bytes).c_str());
  }
  static const std::vector<Config::Row> rows = Config{}.describe();
  Env env;
  for (const auto& r : rows) env.names.push_back(r.name);
  env.values.resize(rows.size());
  env.set.resize(rows.size());
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t var = static_cast<std::uint8_t>(text[start]) % rows.size();
    env.values[var] = text.substr(start + 1, end > start ? end - start - 1 : 0);
    env.values[var] = env.values[var].c_str();  // an environment value ends at its first NUL
    env.set[var] = true;
    start = end + 1;
  }
  try {
    Config::parse([](const char* name, void* ctx) -> const char* {
      auto* e = static_cast<Env*>(ctx);
      for (std::size_t i = 0; i < e->names.size(); ++i)
        if (e->names[i] == name) return e->set[i] ? e->values[i].c_str() : nullptr;
      return nullptr;
    }, &env);
  } catch (const Error& e) {
    bool named = false;
    for (const auto& n : env.names) named |= strstr(e.what(), ("variable " + n + "=").c_str()) != nullptr;
    FUZZ_CHECK(named, "an error that names no variable: %s", e.what());
  }
  return 0;
}
