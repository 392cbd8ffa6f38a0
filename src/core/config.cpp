#include "core/config.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/error.hpp"

namespace tilecomm {
namespace {

[[noreturn]] void bad(const char* var, const std::string& text, const char* expected) {
  raise(ErrorCode::InvalidUsage, "environment variable %s='%s' is not %s; unset it or fix the value",
        var, text.c_str(), expected);
}

void parse(const char* var, const std::string& text, std::size_t& out) {
  if (!parse_size(text, out)) bad(var, text, "a size (a number with an optional K, M, G or T suffix)");
}

void parse(const char* var, const std::string& text, bool& out) {
  static const char* const kTrue[] = {"1", "y", "yes", "true", "on"};
  static const char* const kFalse[] = {"0", "n", "no", "false", "off"};
  for (const char* t : kTrue)
    if (strcasecmp(text.c_str(), t) == 0) return void(out = true);
  for (const char* f : kFalse)
    if (strcasecmp(text.c_str(), f) == 0) return void(out = false);
  bad(var, text, "a boolean (1/0, yes/no, true/false, on/off)");
}

void parse(const char* var, const std::string& text, double& out) {
  // Decimal only: strtod alone would also take " 5", "+5", "0x10" and "inf".
  char* end = nullptr;
  errno = 0;
  double v = strtod(text.c_str(), &end);
  if (text.empty() || !(isdigit(static_cast<unsigned char>(text[0])) || text[0] == '.') ||
      text.find_first_not_of("0123456789.eE+-") != std::string::npos || *end != '\0' || errno != 0 ||
      !std::isfinite(v) || v < 0)
    bad(var, text, "a non-negative number of seconds");
  out = v;
}

void parse(const char* var, const std::string& text, unsigned long long& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text.c_str(), &end, 10);
  // Digits only: strtoull alone would also take " -5" (as 2^64-5) and "+5".
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || *end != '\0' || errno != 0)
    bad(var, text, "a non-negative integer");
  out = v;
}

void parse(const char*, const std::string& text, std::string& out) { out = text; }

void parse(const char* var, const std::string& text, LogLevel& out) {
  static const char* const kNames[] = {"error", "warn", "info", "debug", "trace"};
  for (int i = 0; i < 5; ++i)
    if (strcasecmp(text.c_str(), kNames[i]) == 0) return void(out = static_cast<LogLevel>(i));
  bad(var, text, "one of error, warn, info, debug, trace");
}

constexpr const char* kSocNames[] = {"a2a3", "a5"};

void parse(const char* var, const std::string& text, SocProfile& out) {
  for (int i = 0; i < 2; ++i)
    if (text == kSocNames[i]) return void(out = static_cast<SocProfile>(i));
  bad(var, text, "a known profile: a2a3 or a5");
}

constexpr const char* kStoreNames[] = {"auto", "cached", "streaming"};

void parse(const char* var, const std::string& text, StoreKind& out) {
  for (int i = 0; i < 3; ++i)
    if (text == kStoreNames[i]) return void(out = static_cast<StoreKind>(i));
  bad(var, text, "one of auto, cached, streaming");
}

void parse(const char* var, const std::string& text, std::vector<TransportKind>& out) {
  out.clear();
  for (std::size_t at = 0; at <= text.size();) {
    std::size_t end = std::min(text.find(',', at), text.size());
    std::string name = text.substr(at, end - at);
    if (name == "mte" || name == "shm") out.push_back(TransportKind::Mte);
    else if (name == "sdma") out.push_back(TransportKind::Sdma);
    else if (name == "ucx") out.push_back(TransportKind::Ucx);
    else bad(var, text, "a comma-separated list of transports of this build (mte, sdma, ucx) in priority order");
    at = end + 1;
  }
}

std::string show(std::size_t v) { return format_size(v); }
std::string show(bool v) { return v ? "1" : "0"; }
std::string show(double v) { return strprintf("%g", v); }
std::string show(unsigned long long v) { return std::to_string(v); }
std::string show(const std::string& v) { return v; }
std::string show(SocProfile v) { return kSocNames[static_cast<int>(v)]; }
std::string show(StoreKind v) { return kStoreNames[static_cast<int>(v)]; }
std::string show(const std::vector<TransportKind>& v) {
  std::string s;
  static const char* const kNames[] = {"mte", "sdma", "ucx"};
  for (TransportKind t : v) s += std::string(s.empty() ? "" : ",") + kNames[static_cast<int>(t)];
  return s;
}
std::string show(LogLevel v) {
  static const char* const kNames[] = {"error", "warn", "info", "debug", "trace"};
  return kNames[static_cast<int>(v)];
}

}  // namespace

bool parse_size(const std::string& text, std::size_t& out) {
  // Digits with at most one decimal point, then an optional suffix.
  std::size_t digits = text.find_first_not_of("0123456789.");
  std::string number = text.substr(0, digits);
  if (number.empty() || number == "." || std::count(number.begin(), number.end(), '.') > 1) return false;
  double v = strtod(number.c_str(), nullptr);
  if (!std::isfinite(v)) return false;
  const char* end = text.c_str() + number.size();
  double scale = 1;
  if (*end != '\0') {
    switch (*end) {
      case 'k': case 'K': scale = 1024.0; break;
      case 'm': case 'M': scale = 1024.0 * 1024; break;
      case 'g': case 'G': scale = 1024.0 * 1024 * 1024; break;
      case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; break;
      default: return false;
    }
    ++end;
    if (*end == 'b' || *end == 'B') ++end;  // "512MB" is a common spelling
    if (*end != '\0') return false;
  }
  double bytes = v * scale;
  if (bytes >= 18446744073709551615.0) return false;
  out = static_cast<std::size_t>(bytes);
  return true;
}

std::string format_size(std::size_t bytes) {
  static const char* const kSuffix[] = {"", "K", "M", "G", "T"};
  int i = 0;
  while (i < 4 && bytes != 0 && bytes % 1024 == 0) bytes /= 1024, ++i;
  return std::to_string(bytes) + kSuffix[i];
}

Config Config::load() {
  return parse([](const char* name, void*) -> const char* { return getenv(name); }, nullptr);
}

Config Config::parse(Lookup lookup, void* ctx) {
  Config c;
#define TC_CONFIG(member, type, var, def, help)            \
  {                                                        \
    const char* env = lookup(var, ctx);                    \
    tilecomm::parse(var, env ? std::string(env) : def, c.member); \
  }
#include "core/config_table.def"
#undef TC_CONFIG
  if (c.debug && c.log_level < LogLevel::Debug) c.log_level = LogLevel::Debug;
  return c;
}

const Config& process_config() {
  static const Config cfg = Config::load();
  return cfg;
}

std::vector<Config::Row> Config::describe() const {
  std::vector<Row> rows;
#define TC_CONFIG(member, type, var, def, help) \
  rows.push_back(Row{var, #type, def, help, show(member), getenv(var) != nullptr});
#include "core/config_table.def"
#undef TC_CONFIG
  return rows;
}

}  // namespace tilecomm
