// The communicator's options and outputs, on both faces: a window size of 0
// takes the default (200 MiB data, 4 MiB flags) in C++ (CommOptions) as in C
// (tilecomm_comm_options_t); sizes whose sum cannot be one mapping (it
// overflows, or passes what a process can map) are refused with both values
// named, before anything collective; tilecomm_comm_window fills only the
// outputs that are not NULL.
#include <tilecomm/comm.h>

#include <tilecomm/comm.hpp>

#include <gmock/gmock.h>

#include <cstdint>
#include <limits>
#include <string>

#include "api_test.hpp"

using namespace api;
using ::testing::HasSubstr;
using tilecomm::Comm;
using tilecomm::CommOptions;

namespace {

constexpr std::size_t kDefaultWindow = std::size_t{200} << 20, kDefaultFlags = std::size_t{4} << 20;
constexpr std::size_t kSmallFlags = std::size_t{64} << 10;

CommOptions options(std::size_t window, std::size_t flags) {
  CommOptions o;
  o.window_bytes = window;
  o.flag_bytes = flags;
  return o;
}

struct Outcome {
  std::string error = "(no error)";
  tilecomm::ErrorCode code = tilecomm::ErrorCode::System;
};

// Makes a communicator of every PE with `o` and destroys it; the error, if any.
Outcome world_with(const CommOptions& o) {
  Outcome out;
  try {
    Comm c = Comm::world(o);
    c.destroy();
  } catch (const tilecomm::Error& e) {
    out.error = e.what();
    out.code = e.code();
  }
  return out;
}

// The window sizes every rank's window has in `c` (the same for every rank, or a mismatch is reported).
void expect_sizes(const Comm& c, std::size_t window, std::size_t flags, const std::string& what) {
  EXPECT_EQ(c.args().windowBytes, window) << what;
  EXPECT_EQ(c.args().flagBytes, flags) << what;
  for (int r = 0; r < npes(); ++r) {
    const tilecomm::Window w = c.window(r);
    EXPECT_EQ(w.data_bytes, window) << what << ", rank " << r;
    EXPECT_EQ(w.flag_bytes, flags) << what << ", rank " << r;
    EXPECT_EQ(w.flags, w.data + window) << what << ", rank " << r;
  }
}

}  // namespace

// ---- 0 takes the default, in C++ as in C -----------------------------------------------

TEST(CommOptionsZero, TakesTheDefaultsInCpp) {
  struct Case {
    std::size_t window, flags, want_window, want_flags;
  };
  for (const Case& k : {Case{0, 0, kDefaultWindow, kDefaultFlags}, Case{0, kSmallFlags, kDefaultWindow, kSmallFlags},
                        Case{4096, 0, 4096, kDefaultFlags}}) {
    const std::string what = "CommOptions{" + std::to_string(k.window) + ", " + std::to_string(k.flags) + "}";
    try {
      Comm c = Comm::world(options(k.window, k.flags));
      expect_sizes(c, k.want_window, k.want_flags, what);
      // The default window is usable to its last byte, on every rank.
      auto* last = reinterpret_cast<std::int64_t*>(c.window(me()).data + k.want_window) - 1;
      *last = 1000 + me();
      shmem_team_sync(c.team());
      EXPECT_EQ(*(reinterpret_cast<std::int64_t*>(c.window(right()).data + k.want_window) - 1), 1000 + right())
          << what;
      c.destroy();
    } catch (const tilecomm::Error& e) {
      ADD_FAILURE() << what << " must take the default, but: " << e.what();
    }
  }
}

TEST(CommOptionsZero, MeansTheSameInCAndCpp) {
  // C: both sizes 0, and NULL options.
  for (bool null_options : {false, true}) {
    const tilecomm_comm_options_t zero{0, 0};
    tilecomm_comm_t h = nullptr;
    ASSERT_EQ(tilecomm_comm_init_all(null_options ? nullptr : &zero, &h), TILECOMM_SUCCESS)
        << tilecomm_comm_last_error();
    std::size_t db = 0, fb = 0;
    void *data = nullptr, *flags = nullptr;
    EXPECT_EQ(tilecomm_comm_window(h, right(), &data, &db, &flags, &fb), TILECOMM_SUCCESS)
        << tilecomm_comm_last_error();
    EXPECT_EQ(db, kDefaultWindow);
    EXPECT_EQ(fb, kDefaultFlags);
    EXPECT_EQ(static_cast<char*>(flags), static_cast<char*>(data) + kDefaultWindow);
    EXPECT_EQ(tilecomm_comm_destroy(h), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
  }
  // C++: the same sizes.
  const Outcome cpp = world_with(options(0, 0));
  EXPECT_EQ(cpp.error, "(no error)") << "C takes 0 as the default; C++ must too";
}

// ---- sizes that cannot be one mapping ---------------------------------------------------

TEST(CommOptionsSizes, ASumThatOverflowsOrCannotBeMappedIsRefusedNamingBothValues) {
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  const std::size_t huge = kMax - 127;  // the largest multiple of 128
  struct Case {
    std::size_t window, flags;
  };
  const Case cases[] = {
      {huge, kSmallFlags},                          // the sum wraps to 64 KiB - 128
      {4096, huge},                                 // the same, through flag_bytes
      {std::size_t{1} << 63, std::size_t{1} << 63},  // wraps to 0
      {huge - (std::size_t{1} << 20), kSmallFlags},  // the sum fits; with the alignment reserve it does not
      {std::size_t{1} << 50, kSmallFlags},           // 1 PiB: no process maps that much
  };
  for (const Case& k : cases) {
    const std::string what = "window_bytes=" + std::to_string(k.window) + " flag_bytes=" + std::to_string(k.flags);
    const Outcome o = world_with(options(k.window, k.flags));
    EXPECT_EQ(o.code, tilecomm::ErrorCode::InvalidUsage) << what << ": " << o.error;
    EXPECT_THAT(o.error, HasSubstr("CommOptions::window_bytes=" + std::to_string(k.window))) << what;
    EXPECT_THAT(o.error, HasSubstr("flag_bytes=" + std::to_string(k.flags))) << what;
    EXPECT_THAT(o.error, HasSubstr("lower")) << what << ": the message says what to change";
  }
  // The C API says the same, with its code.
  const tilecomm_comm_options_t o{huge, kSmallFlags};
  tilecomm_comm_t h = nullptr;
  EXPECT_EQ(tilecomm_comm_init_all(&o, &h), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_EQ(h, nullptr);
  EXPECT_THAT(tilecomm_comm_last_error(), HasSubstr("window_bytes=" + std::to_string(huge)));
  EXPECT_THAT(tilecomm_comm_last_error(), HasSubstr("flag_bytes=" + std::to_string(kSmallFlags)));
  // Refused before anything collective: the next communicator is made as usual.
  Comm after = Comm::world(options(4096, kSmallFlags));
  expect_sizes(after, 4096, kSmallFlags, "after the refusals");
  after.destroy();
}

// ---- tilecomm_comm_window: NULL for the outputs not wanted ---------------------------

TEST(CommCWindow, AnyOutputMayBeNull) {
  const tilecomm_comm_options_t o{8192, kSmallFlags};
  tilecomm_comm_t h = nullptr;
  ASSERT_EQ(tilecomm_comm_init_all(&o, &h), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
  for (int r = 0; r < npes(); ++r) {
    void *data = nullptr, *flags = nullptr;
    std::size_t db = 0, fb = 0;
    ASSERT_EQ(tilecomm_comm_window(h, r, &data, &db, &flags, &fb), TILECOMM_SUCCESS) << tilecomm_comm_last_error();
    ASSERT_NE(data, nullptr);
    // Every subset of the four outputs; the ones asked for hold what the full call returns.
    for (int mask = 0; mask < 16; ++mask) {
      void *d = nullptr, *f = nullptr;
      std::size_t dbytes = 1, fbytes = 1;
      const tilecomm_result_t rc = tilecomm_comm_window(h, r, mask & 1 ? &d : nullptr, mask & 2 ? &dbytes : nullptr,
                                                        mask & 4 ? &f : nullptr, mask & 8 ? &fbytes : nullptr);
      EXPECT_EQ(rc, TILECOMM_SUCCESS) << "rank " << r << " mask " << mask << ": " << tilecomm_comm_last_error();
      EXPECT_STREQ(tilecomm_comm_last_error(), "") << "mask " << mask;
      EXPECT_EQ(d, mask & 1 ? data : nullptr) << "mask " << mask;
      EXPECT_EQ(dbytes, mask & 2 ? db : 1u) << "mask " << mask;
      EXPECT_EQ(f, mask & 4 ? flags : nullptr) << "mask " << mask;
      EXPECT_EQ(fbytes, mask & 8 ? fb : 1u) << "mask " << mask;
    }
  }
  // NULL outputs do not hide the errors: a wrong rank, a dead handle.
  EXPECT_EQ(tilecomm_comm_window(h, npes(), nullptr, nullptr, nullptr, nullptr), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_THAT(tilecomm_comm_last_error(), HasSubstr("is not a rank of this communicator"));
  EXPECT_EQ(tilecomm_comm_destroy(h), TILECOMM_SUCCESS);
  EXPECT_EQ(tilecomm_comm_window(h, 0, nullptr, nullptr, nullptr, nullptr), TILECOMM_ERROR_INVALID_USAGE);
  EXPECT_THAT(tilecomm_comm_last_error(), HasSubstr("not live"));
}
