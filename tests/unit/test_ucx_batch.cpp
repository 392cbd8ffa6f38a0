// The wire format of a batch of puts (NOTE [ucx coalescing]): what a batch
// applies, and that every malformed batch is refused with a message naming
// the fault instead of writing where it points.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "transport/ucx/ucx_transport.hpp"

namespace b = tilecomm::transport::ucx_batch;

namespace {

// A target of 256 bytes at "address" 0x1000.
struct Target {
  std::vector<unsigned char> mem = std::vector<unsigned char>(256, 0);
  void* operator()(std::uint64_t addr, std::size_t n) {
    if (addr < 0x1000 || addr - 0x1000 > mem.size() || n > mem.size() - (addr - 0x1000)) return nullptr;
    return mem.data() + (addr - 0x1000);
  }
};

std::string refusal(const std::vector<char>& batch, int n_pes = 4) {
  Target t;
  try {
    b::apply(batch.data(), batch.size(), n_pes, std::ref(t));
  } catch (const tilecomm::Error& e) {
    return e.what();
  }
  return "accepted";
}

std::vector<char> batch_of(int pe, std::initializer_list<std::pair<std::uint64_t, std::string>> puts) {
  std::vector<char> v(b::kBytes);
  std::size_t used = b::start(v.data(), pe);
  for (const auto& [addr, bytes] : puts) used = b::append(v.data(), used, addr, bytes.data(), bytes.size());
  v.resize(used);
  return v;
}

}  // namespace

TEST(UcxBatch, AppliesEveryPutInOrder) {
  const auto batch = batch_of(2, {{0x1000, "abc"}, {0x1010, "0123456789"}, {0x1001, "XY"}, {0x10ff, "z"}});
  EXPECT_EQ(batch.size(), sizeof(b::Head) + b::record_bytes(3) + b::record_bytes(10) + b::record_bytes(2) +
                              b::record_bytes(1));
  Target t;
  EXPECT_EQ(b::apply(batch.data(), batch.size(), 4, std::ref(t)), 2);
  EXPECT_EQ(std::string(reinterpret_cast<char*>(t.mem.data()), 3), "aXY");  // the later put wins
  EXPECT_EQ(std::string(reinterpret_cast<char*>(t.mem.data() + 0x10), 10), "0123456789");
  EXPECT_EQ(t.mem[0xff], 'z');
  EXPECT_EQ(t.mem[3], 0);
  EXPECT_EQ(t.mem[0x1a], 0);
}

TEST(UcxBatch, AnEmptyBatchAppliesNothing) {
  const auto batch = batch_of(0, {});
  Target t;
  EXPECT_EQ(b::apply(batch.data(), batch.size(), 1, std::ref(t)), 0);
  EXPECT_EQ(std::count(t.mem.begin(), t.mem.end(), 0), 256);
}

TEST(UcxBatch, TheLargestPutFits) {
  std::vector<char> v(b::kBytes);
  const std::string big(b::kMaxPut, 'q');
  const std::size_t used = b::append(v.data(), b::start(v.data(), 1), 0x1000, big.data(), big.size());
  EXPECT_EQ(used, b::kBytes);
}

TEST(UcxBatch, RefusesMalformedBatches) {
  auto batch = batch_of(1, {{0x1000, "abc"}});
  EXPECT_NE(refusal({batch.begin(), batch.begin() + 4}).find("truncated"), std::string::npos);
  EXPECT_NE(refusal(batch, 1).find("bad header (PE 1 of 1"), std::string::npos);
  auto bad_magic = batch;
  bad_magic[4] ^= 1;
  EXPECT_NE(refusal(bad_magic).find("bad header"), std::string::npos);
  auto cut = batch;
  cut.resize(cut.size() - 1);  // the data's padding is missing
  EXPECT_NE(refusal(cut).find("holds a put of 3 bytes"), std::string::npos);
  auto half_record = batch_of(1, {{0x1000, "abc"}});
  half_record.resize(half_record.size() + 8, 0);
  EXPECT_NE(refusal(half_record).find("truncated at byte"), std::string::npos);
}

TEST(UcxBatch, RefusesPutsOfNoBytesOrMoreThanItHolds) {
  auto batch = batch_of(1, {{0x1000, "abcdefgh"}});
  b::Record r;
  std::memcpy(&r, batch.data() + sizeof(b::Head), sizeof r);
  for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{9}, ~std::uint64_t{0}}) {
    r.bytes = bytes;
    std::memcpy(batch.data() + sizeof(b::Head), &r, sizeof r);
    EXPECT_NE(refusal(batch).find("holds a put of " + std::to_string(bytes) + " bytes"), std::string::npos) << bytes;
  }
}

TEST(UcxBatch, RefusesPutsOutsideTheSegments) {
  EXPECT_NE(refusal(batch_of(3, {{0x10fe, "abc"}})).find("outside this PE's symmetric segments"), std::string::npos);
  EXPECT_NE(refusal(batch_of(3, {{0x0ffe, "abc"}})).find("put 3 bytes at 0xffe"), std::string::npos);
  // A fault stops the batch: the put before it applied, none after.
  const auto batch = batch_of(3, {{0x1000, "ok"}, {0x9000, "no"}, {0x1004, "never"}});
  Target t;
  EXPECT_THROW(b::apply(batch.data(), batch.size(), 4, std::ref(t)), tilecomm::Error);
  EXPECT_EQ(t.mem[0], 'o');
  EXPECT_EQ(t.mem[4], 0);
}

// Which endpoints batch puts: those whose lanes (as ucp_ep_print_info
// prints them) carry RMA only over TCP, or not at all.
TEST(UcxBatch, BatchesPutsOnlyWhereTheyNeedTheTargetsCpu) {
  const char* tcp =
      "#\n# UCP endpoint \n#\n#               peer: <no debug data>\n"
      "#                 lane[0]:  0:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] am am_bw#0 keepalive "
      "wireup\n#\n#                 am_send: 0..<egr/short>..65529..<egr/zcopy>..90763..<rndv>..(inf)\n"
      "#\n#                  rma_bw: mds rndv_rkey_size 9\n#\n";
  EXPECT_TRUE(b::puts_emulated(tcp));
  EXPECT_TRUE(b::puts_emulated("#  lane[0]:  0:tcp/eth0.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#0 am am_bw#0\n"
                               "#  lane[1]:  1:tcp/eth1.0 md[0] -> md[0]/tcp/sysdev[255] rma_bw#1\n"));
  EXPECT_FALSE(b::puts_emulated("#  lane[0]:  2:rc_mlx5/mlx5_0:1.0 md[1] -> md[1]/ib/sysdev[255] rma#0 amo#0 am "
                                "am_bw#0 wireup\n"));
  EXPECT_FALSE(b::puts_emulated("#  lane[0]:  0:dc_mlx5/mlx5_0:1.0 md[0] -> addr[0].md[0]/ib/sysdev[1] am am_bw#0\n"
                                "#  lane[1]:  4:dc_mlx5/mlx5_2:1.0 md[2] -> addr[4].md[2]/ib/sysdev[3] rma_bw#0\n"));
  EXPECT_FALSE(b::puts_emulated("#  lane[0]:  0:tcp/eth0.0 md[0] -> md[0]/tcp/sysdev[255] am am_bw#0\n"
                                "#  lane[1]:  3:cma/memory.0 md[2] -> md[2]/cma/sysdev[255] rma_bw#0\n"));
  EXPECT_FALSE(b::puts_emulated(""));                              // nothing recognised: UCX's own puts
  EXPECT_FALSE(b::puts_emulated("#  rma_bw: mds rndv_rkey_size 9\n"));
}
