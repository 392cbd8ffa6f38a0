// The unique ID, in both forms a PE receives it:
//   - the 128-byte shmemx_uniqueid_t that shmemx_set_attr_uniqueid_args
//     copies (text up to the first NUL, at most 128 bytes);
//   - the TILECOMM_UNIQUEID environment variable, through the config table.
// Invariant: a text that parses is exactly what Rendezvous::to_string() makes
// of the result, so one rendezvous has one spelling.
#include <cstdint>
#include <cstring>
#include <string>

#include "bootstrap/wire.hpp"
#include "core/error.hpp"
#include "fuzz_common.hpp"

using namespace tilecomm;
using namespace tilecomm::bootstrap;

namespace {

void parse_checked(const std::string& text) {
  try {
    Rendezvous r = Rendezvous::parse(text, "fuzz");
    FUZZ_CHECK(r.to_string() == text, "'%s' parsed, but prints as '%s'", text.c_str(), r.to_string().c_str());
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static bool once = (fuzz::silence_logs(), true);
  (void)once;
  // The binary form: shmemx_uniqueid_t.internal.
  char internal[128] = {};
  memcpy(internal, data, std::min(size, sizeof internal));
  parse_checked(std::string(internal, strnlen(internal, sizeof internal)));
  // The environment form.
  std::string env(reinterpret_cast<const char*>(data), size);
  env = env.c_str();  // an environment value ends at its first NUL
  try {
    Config cfg = Config::parse([](const char* name, void* ctx) -> const char* {
      return strcmp(name, "TILECOMM_UNIQUEID") == 0 ? static_cast<std::string*>(ctx)->c_str() : nullptr;
    }, &env);
    FUZZ_CHECK(cfg.uniqueid == env, "TILECOMM_UNIQUEID read as '%s'", cfg.uniqueid.c_str());
    parse_checked(cfg.uniqueid);
  } catch (const Error&) {
  }
  return 0;
}
