// Configuration: one immutable record parsed once from the environment.
//
// The variables, their types, defaults and help texts live in
// config_table.def and nowhere else. Config::load() parses them strictly: a
// malformed value is an InvalidUsage error naming the variable and the value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tilecomm {

enum class LogLevel : int { Error = 0, Warn, Info, Debug, Trace };
/// The accelerator profile kernels are sized for (TILECOMM_SOC).
enum class SocProfile : int { A2A3 = 0, A5 };
/// A transport that puts and gets may be routed to (TILECOMM_TRANSPORTS).
enum class TransportKind : std::uint8_t { Mte = 0, Sdma, Ucx };
/// The stores of copies that peers read next (TILECOMM_PUBLISH_STORES).
enum class StoreKind : int { Auto = 0, Cached, Streaming };

struct Config {
  using Size = std::size_t;
  using Bool = bool;
  using Seconds = double;
  using UInt = unsigned long long;  // distinct from Size (size_t)
  using String = std::string;
  using Level = LogLevel;
  using Soc = SocProfile;
  using Stores = StoreKind;
  using Transports = std::vector<TransportKind>;  // priority order, never empty

#define TC_CONFIG(member, type, var, def, help) type member{};
#include "core/config_table.def"
#undef TC_CONFIG

  /// Parses the environment; throws tilecomm::Error on a malformed value.
  static Config load();
  /// Parses what `lookup` gives for each variable (nullptr: unset), the way
  /// load() parses the environment; for tests and tests/fuzz/fuzz_config.cpp.
  using Lookup = const char* (*)(const char* name, void* ctx);
  static Config parse(Lookup lookup, void* ctx);

  /// One row per variable, for tilecomm-info and SHMEM_INFO.
  struct Row {
    const char* name;
    const char* type;
    const char* def;
    const char* help;
    std::string value;  // the current value, as parsed
    bool set;           // given in the environment
  };
  std::vector<Row> describe() const;
};

/// The configuration of this process, parsed on first use (throws
/// tilecomm::Error on a malformed value) and immutable afterwards.
const Config& process_config();

/// Parses "512M", "1.5G", "4096"; strict: false on anything else.
bool parse_size(const std::string& text, std::size_t& out);
std::string format_size(std::size_t bytes);

}  // namespace tilecomm
