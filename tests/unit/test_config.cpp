#include <gtest/gtest.h>

#include <stdlib.h>
#include <string.h>

#include <set>

#include "core/config.hpp"
#include "core/error.hpp"

using tilecomm::Config;
using tilecomm::parse_size;

TEST(ParseSize, AcceptsSpecForms) {
  std::size_t v = 0;
  EXPECT_TRUE(parse_size("4096", v));
  EXPECT_EQ(v, 4096u);
  EXPECT_TRUE(parse_size("512M", v));
  EXPECT_EQ(v, 512u << 20);
  EXPECT_TRUE(parse_size("1g", v));
  EXPECT_EQ(v, 1u << 30);
  EXPECT_TRUE(parse_size("1.5K", v));
  EXPECT_EQ(v, 1536u);
  EXPECT_TRUE(parse_size("2T", v));
  EXPECT_EQ(v, std::size_t{2} << 40);
  EXPECT_TRUE(parse_size("64MB", v));
  EXPECT_EQ(v, 64u << 20);
}

TEST(ParseSize, RejectsEverythingElse) {
  std::size_t v = 7;
  for (const char* bad : {"", "-1", "+5", " 5", "5 ", "12Q", "M", "1MM", "1e400", "0x10", "abc", "5KBx"})
    EXPECT_FALSE(parse_size(bad, v)) << bad;
  EXPECT_EQ(v, 7u);
}

TEST(Config, DefaultsAndOverrides) {
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  unsetenv("TILECOMM_TIMEOUT");
  Config d = Config::load();
  EXPECT_EQ(d.symmetric_size, 256u << 20);
  EXPECT_EQ(d.timeout, 0.0);
  setenv("SHMEM_SYMMETRIC_SIZE", "1G", 1);
  setenv("TILECOMM_TIMEOUT", "2.5", 1);
  Config c = Config::load();
  EXPECT_EQ(c.symmetric_size, 1u << 30);
  EXPECT_EQ(c.timeout, 2.5);
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  unsetenv("TILECOMM_TIMEOUT");
}

TEST(Config, MalformedValueNamesVariableAndValue) {
  setenv("SHMEM_SYMMETRIC_SIZE", "12Q", 1);
  try {
    Config::load();
    ADD_FAILURE() << "no error for SHMEM_SYMMETRIC_SIZE=12Q";
  } catch (const tilecomm::Error& e) {
    EXPECT_EQ(e.code(), tilecomm::ErrorCode::InvalidUsage);
    EXPECT_NE(std::string(e.what()).find("SHMEM_SYMMETRIC_SIZE='12Q'"), std::string::npos) << e.what();
  }
  unsetenv("SHMEM_SYMMETRIC_SIZE");
  setenv("TILECOMM_LOG_LEVEL", "loud", 1);
  EXPECT_THROW(Config::load(), tilecomm::Error);
  unsetenv("TILECOMM_LOG_LEVEL");
  setenv("SHMEM_DEBUG", "maybe", 1);
  EXPECT_THROW(Config::load(), tilecomm::Error);
  unsetenv("SHMEM_DEBUG");
}

// Config::parse with one variable set to `value`; the error text, or "" when it parsed.
static std::string parse_one(const char* var, const char* value) {
  struct One {
    const char* var;
    const char* value;
  } one{var, value};
  try {
    Config::parse([](const char* name, void* ctx) -> const char* {
      auto* o = static_cast<One*>(ctx);
      return strcmp(name, o->var) == 0 ? o->value : nullptr;
    }, &one);
    return "";
  } catch (const tilecomm::Error& e) {
    return e.what();
  }
}

TEST(Config, NumbersAreDecimalWithoutSpacesOrSigns) {
  EXPECT_EQ(parse_one("TILECOMM_SPIN", "42"), "");
  EXPECT_EQ(parse_one("TILECOMM_TIMEOUT", "2.5"), "");
  EXPECT_EQ(parse_one("TILECOMM_TIMEOUT", "1e3"), "");
  for (const char* bad : {" -5", "+5", " 5", "5 ", "0x10", "-0"})
    EXPECT_EQ(parse_one("TILECOMM_SPIN", bad),
              std::string("environment variable TILECOMM_SPIN='") + bad +
                  "' is not a non-negative integer; unset it or fix the value") << bad;
  for (const char* bad : {" 5", "+5", "0x10", "inf", "nan", "-1"})
    EXPECT_NE(parse_one("TILECOMM_TIMEOUT", bad).find("is not a non-negative number of seconds"), std::string::npos)
        << bad;
}

TEST(Config, ProfileAndTransportListAreParsedWithTheTable) {
  using tilecomm::SocProfile;
  using tilecomm::TransportKind;
  EXPECT_EQ(parse_one("TILECOMM_SOC", "a5"), "");
  EXPECT_EQ(parse_one("TILECOMM_TRANSPORTS", "sdma,mte"), "");
  EXPECT_EQ(parse_one("TILECOMM_TRANSPORTS", "ucx,mte"), "");
  EXPECT_EQ(parse_one("TILECOMM_SOC", "a3"),
            "environment variable TILECOMM_SOC='a3' is not a known profile: a2a3 or a5; unset it or fix the value");
  for (const char* bad : {"", "verbs", "mte,", ",sdma", "mte sdma", "MTE", "UCX"})
    EXPECT_EQ(parse_one("TILECOMM_TRANSPORTS", bad),
              std::string("environment variable TILECOMM_TRANSPORTS='") + bad +
                  "' is not a comma-separated list of transports of this build (mte, sdma, ucx) in priority order; "
                  "unset it or fix the value") << bad;
  setenv("TILECOMM_SOC", "a5", 1);
  setenv("TILECOMM_TRANSPORTS", "sdma,shm", 1);
  Config c = Config::load();
  unsetenv("TILECOMM_SOC");
  unsetenv("TILECOMM_TRANSPORTS");
  EXPECT_EQ(c.soc, SocProfile::A5);
  EXPECT_EQ(c.transports, (std::vector<TransportKind>{TransportKind::Sdma, TransportKind::Mte}));
  Config d = Config::load();
  EXPECT_EQ(d.soc, SocProfile::A2A3);
  EXPECT_EQ(d.transports, (std::vector<TransportKind>{TransportKind::Mte, TransportKind::Sdma}));
  for (const auto& row : c.describe()) {
    if (!strcmp(row.name, "TILECOMM_SOC")) {
      EXPECT_EQ(row.value, "a5");
    } else if (!strcmp(row.name, "TILECOMM_TRANSPORTS")) {
      EXPECT_EQ(row.value, "sdma,mte");
    }
  }
}

TEST(Config, DescribeListsEveryVariableOnce) {
  Config c = Config::load();
  auto rows = c.describe();
  ASSERT_GE(rows.size(), 10u);
  std::set<std::string> names;
  for (auto& r : rows) {
    EXPECT_TRUE(names.insert(r.name).second) << r.name;
    EXPECT_GT(strlen(r.help), 10u) << r.name;
  }
  EXPECT_EQ(names.count("SHMEM_SYMMETRIC_SIZE"), 1u);
  EXPECT_EQ(names.count("TILECOMM_TIMEOUT"), 1u);
}
