// The rendezvous server against peers that hold the cookie and misbehave:
// each test plays the PEs itself over real sockets, with the library's wire
// header. Every wait is bounded (60 s) only so that a bug fails instead of
// hanging; no test depends on timing to pass.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/client.hpp"
#include "bootstrap/server.hpp"
#include "core/error.hpp"
#include "core/wait.hpp"

namespace bs = tilecomm::bootstrap;
using bs::Msg;

namespace {

constexpr int kHangBoundMs = 60000;

int connect_to(const bs::Rendezvous& r, int rcvbuf = 0) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (rcvbuf) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = r.addr;
  sa.sin_port = htons(r.port);
  EXPECT_EQ(0, ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa)) << strerror(errno);
  return fd;
}

// A process that speaks the protocol by hand.
struct FakePe {
  int fd;
  explicit FakePe(const bs::Rendezvous& r, int rcvbuf = 0) : fd(connect_to(r, rcvbuf)) {}
  ~FakePe() { close(); }
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  void send(Msg type, const void* p = nullptr, std::size_t n = 0) { ASSERT_TRUE(bs::send_msg(fd, type, p, n)); }
  /// An Allgather under `key` (NOTE [keyed gathers]).
  void gather(std::string_view key, const void* p = nullptr, std::size_t n = 0, std::uint32_t want = bs::kGatherList) {
    const std::string body = bs::gather_body(key, want, p, n);
    send(Msg::Allgather, body.data(), body.size());
  }
  void hello(const bs::Rendezvous& r, int rank, int size) {
    bs::HelloBody h{};
    memcpy(h.cookie, r.cookie, bs::kCookieBytes);
    h.rank = rank;
    h.size = size;
    h.pid = 1000 + rank;
    snprintf(h.host, sizeof h.host, "fake");
    send(Msg::Hello, &h, sizeof h);
  }
  // The next message; its type is "EOF" when the server closed the connection.
  std::pair<std::string, std::string> next() {
    bs::MsgHeader h{};
    std::vector<char> body;
    int r = bs::recv_msg(fd, h, body, kHangBoundMs);
    if (r == 0) return {"timeout", ""};
    if (r < 0) return {"EOF", ""};
    return {bs::msg_name(h.type), std::string(body.begin(), body.end())};
  }
  void join(const bs::Rendezvous& r, int rank, int size) {
    hello(r, rank, size);
    ASSERT_EQ(next().first, "Welcome");
  }
};

bs::Server make_server(int size, int max_pending = 64, double hello_timeout_s = 10) {
  bs::JobOptions opt;
  opt.size = size;
  opt.max_pending = max_pending;
  opt.hello_timeout_s = hello_timeout_s;
  return bs::Server(htonl(INADDR_LOOPBACK), opt);
}

// The body of the AllgatherResult a group of `pes` gets: its size, the
// smallest PE outside it, and when listed its PEs and their `blobs`.
std::string group_result(const std::vector<std::int32_t>& pes, std::int32_t first_other, const std::string& blobs,
                         bool list = true, const std::vector<bs::GatherRun>* runs = nullptr) {
  const std::uint32_t want = (list ? std::uint32_t{bs::kGatherList} : 0u) | (runs ? std::uint32_t{bs::kGatherMap} : 0u);
  const bs::GatherResultHead head{static_cast<std::int32_t>(pes.size()), first_other, want,
                                  static_cast<std::uint32_t>(blobs.size() / pes.size())};
  std::string s(reinterpret_cast<const char*>(&head), sizeof head);
  if (list) s += std::string(reinterpret_cast<const char*>(pes.data()), pes.size() * sizeof(std::int32_t)) + blobs;
  if (runs) {
    const auto count = static_cast<std::int32_t>(runs->size());
    s += std::string(reinterpret_cast<const char*>(&count), sizeof count);
    s += std::string(reinterpret_cast<const char*>(runs->data()), runs->size() * sizeof(bs::GatherRun));
  }
  return s;
}

// Both PEs contribute one int under one key; both must get PEs {0, 1} and {0, 1}.
void expect_allgather_works(FakePe& a, FakePe& b) {
  int blob[2] = {0, 1};
  a.gather("", &blob[0], sizeof(int));
  b.gather("", &blob[1], sizeof(int));
  for (FakePe* p : {&a, &b}) {
    auto [type, body] = p->next();
    ASSERT_EQ(type, "AllgatherResult");
    ASSERT_EQ(body, group_result({0, 1}, -1, std::string(reinterpret_cast<char*>(blob), sizeof blob)));
  }
}

// A Hello as PE `rank` of `size` is answered by Reject(text), then the server closes.
void expect_rejected(const bs::Rendezvous& r, int rank, int size, const std::string& text) {
  FakePe pe(r);
  pe.hello(r, rank, size);
  EXPECT_EQ(pe.next(), std::make_pair(std::string("Reject"), text));
  EXPECT_EQ(pe.next().first, "EOF");
}

// Two PEs join `r` and allgather.
void expect_two_pes_work(const bs::Rendezvous& r) {
  FakePe pe0(r), pe1(r);
  pe0.join(r, 0, 2);
  pe1.join(r, 1, 2);
  expect_allgather_works(pe0, pe1);
}

// A job of two PEs, both joined.
class TwoPeJob : public ::testing::Test {
 protected:
  void SetUp() override {
    pe0.join(r, 0, 2);
    pe1.join(r, 1, 2);
  }
  bs::Server server = make_server(2);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe pe0{r}, pe1{r};
};

}  // namespace

TEST_F(TwoPeJob, PeBreakingTheProtocolIsForgottenAndAbortsTheJob) {
  int blob = 7;
  pe0.gather("", &blob, sizeof blob);
  pe0.gather("", &blob, sizeof blob);  // two in one round: pe0 is dropped
  EXPECT_EQ(pe0.next().first, "EOF");
  auto [type, text] = pe1.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 0 (pid 1000 on fake) broke the bootstrap protocol: it sent two Allgather messages"),
            std::string::npos) << text;
  // The dropped PE's slot holds nothing: completing the round and a second
  // Hello as PE 0 must not touch the dropped connection.
  pe1.gather("", &blob, sizeof blob);
  FakePe again(r);
  again.hello(r, 0, 2);
  auto [again_type, again_text] = again.next();
  EXPECT_EQ(again_type, "Reject");
  EXPECT_EQ(again_text, "PE 0 joined twice (pids 1000 and 1000)");
}

TEST_F(TwoPeJob, PeClosingBeforeFinalizeAbortsNamingIt) {
  pe1.close();
  auto [type, text] = pe0.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_EQ(text, "PE 1 (pid 1001 on fake) left the job without shmem_finalize (it exited or was killed)");
}

TEST(BootstrapServer, SizeComesFromTheLauncherNotTheFirstHello) {
  bs::Server server = make_server(2);
  const bs::Rendezvous& r = server.rendezvous();
  expect_rejected(r, 0, 1,
                  "PE 0 says the job has 1 PEs, but it was started with 2; start every PE with the same number of PEs");
  expect_two_pes_work(r);
}

TEST(BootstrapServer, LauncherSizeGivenLaterChecksTheFirstHello) {
  bs::Server server = make_server(0);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe pe0(r);
  pe0.join(r, 0, 3);
  server.set_job_size(2);
  auto [type, text] = pe0.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("started a job of 2 PEs, but the PEs that joined first said 3"), std::string::npos) << text;
}

TEST(BootstrapServer, JobSizeIsBoundedBeforeAllocation) {
  bs::Server server = make_server(0);
  const bs::Rendezvous& r = server.rendezvous();
  expect_rejected(r, 0, 0x7fffffff, "PE 0 says the job has 2147483647 PEs; a job has 1 to 65536");
  expect_two_pes_work(r);
}

TEST_F(TwoPeJob, AllgatherBlobIsBoundedBeforeItIsRead) {
  // Only the header of a 40 MiB blob: two of them would not fit in a message.
  bs::MsgHeader h{static_cast<std::uint32_t>(Msg::Allgather), 40u << 20};
  ASSERT_EQ(::send(pe0.fd, &h, sizeof h, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof h));
  auto [type, text] = pe1.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 0 (pid 1000 on fake) broke the bootstrap protocol: it sent a Allgather message of 41943040 "
                      "bytes, more than the 33554674 bytes a job of 2 PEs allows"), std::string::npos) << text;
}

TEST_F(TwoPeJob, EmptyAllgatherBlobs) {
  pe0.gather("");
  pe1.gather("");
  for (FakePe* p : {&pe0, &pe1})
    EXPECT_EQ(p->next(), std::make_pair(std::string("AllgatherResult"), group_result({0, 1}, -1, "")));
}

// NOTE [keyed gathers]: PEs that give one key form a group and learn only
// their group; without a list, only its size and the first PE outside it.
TEST(BootstrapServer, GathersGroupPesByKey) {
  bs::Server server = make_server(4);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe pe[4] = {FakePe(r), FakePe(r), FakePe(r), FakePe(r)};
  for (int i = 0; i < 4; ++i) pe[i].join(r, i, 4);
  const char* keys[4] = {"host b", "host a", "host b", "host b"};
  for (int i = 0; i < 4; ++i) {
    const std::int32_t blob = 10 + i;
    pe[i].gather(keys[i], &blob, sizeof blob);
  }
  auto blobs = [](std::vector<std::int32_t> v) { return std::string(reinterpret_cast<char*>(v.data()), v.size() * 4); };
  const std::string b = group_result({0, 2, 3}, 1, blobs({10, 12, 13})), a = group_result({1}, 0, blobs({11}));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(pe[i].next(), std::make_pair(std::string("AllgatherResult"), i == 1 ? a : b)) << "PE " << i;
  // Agreement without a list: PE 3 differs.
  for (int i = 0; i < 4; ++i) pe[i].gather(i == 3 ? "other" : "same", nullptr, 0, bs::kGatherCount);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(pe[i].next(), std::make_pair(std::string("AllgatherResult"),
                                           i == 3 ? group_result({3}, 0, "", false) : group_result({0, 1, 2}, 3, "", false)))
        << "PE " << i;
}

// A gather may ask for the map of every group: runs of consecutive PEs of
// one group, each named by its group's first PE (init's map of the hosts).
TEST(BootstrapServer, MapsEveryGroupAsRunsOfPes) {
  bs::Server server = make_server(6);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe pe[6] = {FakePe(r), FakePe(r), FakePe(r), FakePe(r), FakePe(r), FakePe(r)};
  for (int i = 0; i < 6; ++i) pe[i].join(r, i, 6);
  const char* keys[6] = {"b", "b", "a", "b", "a", "a"};  // groups first at PEs 0 (b) and 2 (a)
  for (int i = 0; i < 6; ++i) {
    const std::int32_t blob = 10 + i;
    pe[i].gather(keys[i], &blob, sizeof blob, bs::kGatherList | bs::kGatherMap);
  }
  const std::vector<bs::GatherRun> runs{{0, 0}, {2, 2}, {3, 0}, {4, 2}};
  auto blobs = [](std::vector<std::int32_t> v) { return std::string(reinterpret_cast<char*>(v.data()), v.size() * 4); };
  const std::string b = group_result({0, 1, 3}, 2, blobs({10, 11, 13}), true, &runs);
  const std::string a = group_result({2, 4, 5}, 0, blobs({12, 14, 15}), true, &runs);
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(pe[i].next(), std::make_pair(std::string("AllgatherResult"), keys[i][0] == 'b' ? b : a)) << "PE " << i;
  // The client's decoder takes it, and refuses a map whose runs do not cover the job in order.
  const bs::MsgHeader h{static_cast<std::uint32_t>(Msg::AllgatherResult), static_cast<std::uint32_t>(b.size())};
  const bs::ServerMsg m = bs::decode_server_msg(h, std::vector<char>(b.begin(), b.end()),
                                                bs::GatherShape{4, bs::kGatherList | bs::kGatherMap, 6});
  ASSERT_EQ(m.kind, bs::ServerMsg::AllgatherResult) << m.text;
  ASSERT_EQ(m.runs.size(), 4u);
  EXPECT_EQ(m.runs[3].start, 4);
  EXPECT_EQ(m.runs[3].group, 2);
  for (const std::vector<bs::GatherRun>& bad : {std::vector<bs::GatherRun>{{1, 0}, {2, 2}},    // not from PE 0
                                                std::vector<bs::GatherRun>{{0, 0}, {0, 0}},    // not ascending
                                                std::vector<bs::GatherRun>{{0, 0}, {2, 3}},    // names a later PE
                                                std::vector<bs::GatherRun>{{0, 0}, {3, 0}}}) {  // not a change of group
    const std::string body = group_result({0, 1, 3}, 2, blobs({10, 11, 13}), true, &bad);
    const bs::MsgHeader hb{static_cast<std::uint32_t>(Msg::AllgatherResult), static_cast<std::uint32_t>(body.size())};
    const bs::ServerMsg w = bs::decode_server_msg(hb, std::vector<char>(body.begin(), body.end()),
                                                  bs::GatherShape{4, bs::kGatherList | bs::kGatherMap, 6});
    EXPECT_EQ(w.kind, bs::ServerMsg::Invalid);
    EXPECT_NE(w.text.find("map of 2 runs"), std::string::npos) << w.text;
  }
}

TEST_F(TwoPeJob, GatherWithAKeyLongerThanTheBoundIsDropped) {
  const std::string key(bs::kMaxGatherKey + 1, 'k');
  pe0.gather(key);
  EXPECT_EQ(pe0.next().first, "EOF");
  auto [type, text] = pe1.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 0 (pid 1000 on fake) broke the bootstrap protocol: it sent an Allgather of 265 bytes that "
                      "does not start with a key of at most 256 bytes"), std::string::npos) << text;
}

TEST_F(TwoPeJob, GathersThatDisagreeOnTheListAbortTheJob) {
  pe0.gather("", nullptr, 0, bs::kGatherList);
  pe1.gather("", nullptr, 0, bs::kGatherMap);
  for (FakePe* p : {&pe0, &pe1}) {
    auto [type, text] = p->next();
    EXPECT_EQ(type, "Abort");
    EXPECT_NE(text.find("PEs disagree in a bootstrap allgather: PE 1 (pid 1001 on fake) sent 0 bytes asking for a map, "
                        "the PEs before it 0 bytes asking for a list"), std::string::npos) << text;
  }
}

TEST_F(TwoPeJob, RepeatedFinalizeCountsOnce) {
  pe0.send(Msg::Finalize);
  pe0.send(Msg::Finalize);
  // An allgather after both Finalizes: its result proves the server read them.
  expect_allgather_works(pe0, pe1);
  EXPECT_FALSE(server.all_finalized());
  pe1.send(Msg::Finalize);
  EXPECT_TRUE(server.wait_all_finalized(kHangBoundMs / 1000.0));
}

TEST(BootstrapServer, StalledPeDoesNotBlockTheOthers) {
  bs::Server server = make_server(2);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe stalled(r, 4096), pe1(r);
  stalled.join(r, 0, 2);
  pe1.join(r, 1, 2);
  // A 16 MiB result: far more than the stalled PE's socket buffers take.
  std::vector<char> blob(8u << 20, 'x');
  stalled.gather("", blob.data(), blob.size());
  pe1.gather("", blob.data(), blob.size());
  auto [type, body] = pe1.next();
  EXPECT_EQ(type, "AllgatherResult");
  EXPECT_EQ(body, group_result({0, 1}, -1, std::string(blob.begin(), blob.end()) + std::string(blob.begin(), blob.end())));
}

// At most max_pending connections wait for their Hello; the PEs that come
// while the cap is full wait in the listen backlog and join once there is
// room, none is refused for it.
TEST(BootstrapServer, PeersBeyondTheHelloCapWaitAndJoin) {
  bs::Server server = make_server(2, /*max_pending=*/4, /*hello_timeout_s=*/1e6);
  const bs::Rendezvous& r = server.rendezvous();
  std::vector<std::unique_ptr<FakePe>> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(std::make_unique<FakePe>(r));
  for (int i = 0; i < kHangBoundMs && server.pending() < 4; ++i) usleep(1000);
  ASSERT_EQ(server.pending(), 4);
  FakePe pe0(r), pe1(r);
  pe0.hello(r, 0, 2);
  pe1.hello(r, 1, 2);
  EXPECT_EQ(server.pending(), 4);
  idle.clear();  // they leave without a Hello: room for the PEs
  EXPECT_EQ(pe0.next().first, "Welcome");
  EXPECT_EQ(pe1.next().first, "Welcome");
  expect_allgather_works(pe0, pe1);
  // The server may see the last closings after the PEs joined: wait for them.
  for (int i = 0; i < kHangBoundMs && (server.rejected() < 4 || server.pending() > 0); ++i) usleep(1000);
  EXPECT_EQ(server.rejected(), 4);  // the four that closed before their Hello
  EXPECT_EQ(server.pending(), 0);
}

TEST(BootstrapClient, WrongCookieIsNamedAsTheLikelyCause) {
  bs::Server server = make_server(1);
  bs::Rendezvous r = server.rendezvous();
  r.cookie[0] ^= 0x5a;
  std::string what;
  try {
    bs::Client client(r, 0, 1, kHangBoundMs / 1000.0);
  } catch (const tilecomm::Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("PE 0: the rendezvous server at "), std::string::npos) << what;
  EXPECT_NE(what.find(" closed the connection during Hello: a wrong cookie (the unique ID is not this "
                      "rendezvous's), or the Hello did not reach it in time"), std::string::npos) << what;
}

TEST(BootstrapClient, HelloAnsweredByAnythingButWelcomeIsAnError) {
  bs::Rendezvous r = bs::Rendezvous::with_random_cookie(htonl(INADDR_LOOPBACK), 0);
  int lfd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = r.addr;
  ASSERT_EQ(0, ::bind(lfd, reinterpret_cast<sockaddr*>(&sa), sizeof sa));
  ASSERT_EQ(0, ::listen(lfd, 1));
  socklen_t len = sizeof sa;
  getsockname(lfd, reinterpret_cast<sockaddr*>(&sa), &len);
  r.port = ntohs(sa.sin_port);
  std::thread fake_server([lfd] {
    int fd = ::accept(lfd, nullptr, nullptr);
    bs::MsgHeader h{};
    std::vector<char> body;
    bs::recv_msg(fd, h, body, kHangBoundMs);
    char three[3] = {1, 2, 3};
    bs::send_msg(fd, Msg::AllgatherResult, three, sizeof three);
    bs::recv_msg(fd, h, body, kHangBoundMs);  // until the client closes
    ::close(fd);
  });
  std::string what;
  try {
    bs::Client client(r, 0, 1, kHangBoundMs / 1000.0);
  } catch (const tilecomm::Error& e) {
    what = e.what();
  }
  fake_server.join();
  ::close(lfd);
  EXPECT_NE(what.find("answered Hello with a message of type 5 (AllgatherResult) with 3 payload bytes, expected a "
                      "Welcome"), std::string::npos) << what;
}

// An allgather result goes to every PE as one shared buffer: the server's
// memory for it is its size, not its size times the number of PEs.
TEST(BootstrapJob, AllgatherResultIsQueuedOnceForAllPes) {
  const std::uint8_t cookie[bs::kCookieBytes] = {1, 2, 3};
  bs::JobOptions opt;
  opt.size = 3;
  bs::Job job(cookie, opt);
  for (int pe = 0; pe < 3; ++pe) {
    ASSERT_TRUE(job.add(pe, "test", 0));
    bs::HelloBody h{};
    memcpy(h.cookie, cookie, sizeof cookie);
    h.rank = pe;
    h.size = 3;
    std::string hello = bs::encode(Msg::Hello, &h, sizeof h);
    job.receive(pe, hello.data(), hello.size());
    ASSERT_EQ(job.output(pe)->queue.size(), 1u);  // the Welcome
    job.output(pe)->queue.clear();
  }
  for (int pe = 0; pe < 3; ++pe) {
    std::int32_t blob = 100 + pe;
    const std::string body = bs::gather_body("", true, &blob, sizeof blob);
    std::string m = bs::encode(Msg::Allgather, body.data(), body.size());
    job.receive(pe, m.data(), m.size());
  }
  const std::int32_t all[3] = {100, 101, 102};
  const std::string result = group_result({0, 1, 2}, -1, std::string(reinterpret_cast<const char*>(all), sizeof all));
  const std::string expected = bs::encode(Msg::AllgatherResult, result.data(), result.size());
  for (int pe = 0; pe < 3; ++pe) {
    ASSERT_EQ(job.output(pe)->queue.size(), 1u) << "PE " << pe;
    EXPECT_EQ(*job.output(pe)->queue.front(), expected) << "PE " << pe;
    EXPECT_EQ(job.output(pe)->queue.front().get(), job.output(0)->queue.front().get()) << "PE " << pe;
  }
}

// NOTE [ucx cards]: a published card is what a lookup answers, byte for
// byte; a PE that published none is answered with an empty card.
TEST_F(TwoPeJob, LookupAnswersThePublishedCard) {
  const std::string card("card\0of pe 0", 12);
  pe0.send(Msg::Publish, card.data(), card.size());
  expect_allgather_works(pe0, pe1);  // as at init: every card is there before anybody looks one up
  for (std::int32_t pe : {0, 1}) {
    pe1.send(Msg::Lookup, &pe, sizeof pe);
    auto [type, body] = pe1.next();
    ASSERT_EQ(type, "LookupResult");
    ASSERT_EQ(body.size(), sizeof pe + (pe == 0 ? card.size() : 0));
    std::int32_t who = -1;
    memcpy(&who, body.data(), sizeof who);
    EXPECT_EQ(who, pe);
    EXPECT_EQ(body.substr(sizeof pe), pe == 0 ? card : std::string());
  }
  expect_allgather_works(pe0, pe1);  // the job goes on
}

// A PE that asks without reading the answers is dropped once kMaxUnread of
// them wait in the server (after the socket buffers filled), and the job
// aborts naming it, instead of the server's memory growing.
TEST(BootstrapServer, LookupsNobodyReadsAreBounded) {
  bs::Server server = make_server(2);
  const bs::Rendezvous& r = server.rendezvous();
  FakePe pe0(r), pe1(r, 4096);  // pe1 reads nothing, into a small buffer
  pe0.join(r, 0, 2);
  pe1.join(r, 1, 2);
  const std::int32_t pe = 0;
  std::string chunk;
  for (int i = 0; i < 5000; ++i) chunk += bs::encode(Msg::Lookup, &pe, sizeof pe);
  // 2000 chunks: 120 MB of lookups, 120 MB of answers: more than any socket
  // buffer holds. Sending fails once the server has dropped the connection.
  for (int i = 0; i < 2000; ++i)
    if (::send(pe1.fd, chunk.data(), chunk.size(), MSG_NOSIGNAL) < 0) break;
  auto [type, text] = pe0.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 1 (pid 1001 on fake) broke the bootstrap protocol: it asked for a card with 1024 messages "
                      "it did not read"), std::string::npos) << text;
}

TEST_F(TwoPeJob, LookupOfNoPeBreaksTheProtocol) {
  const std::int32_t nobody = 2;
  pe1.send(Msg::Lookup, &nobody, sizeof nobody);
  EXPECT_EQ(pe1.next().first, "EOF");
  auto [type, text] = pe0.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 1 (pid 1001 on fake) broke the bootstrap protocol: it sent a Lookup of 4 bytes that names "
                      "no PE of the 2"), std::string::npos) << text;
}

TEST_F(TwoPeJob, ASecondCardBreaksTheProtocol) {
  pe0.send(Msg::Publish, "a", 1);
  pe0.send(Msg::Publish, "b", 1);
  EXPECT_EQ(pe0.next().first, "EOF");
  auto [type, text] = pe1.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 0 (pid 1000 on fake) broke the bootstrap protocol: it published a second card"),
            std::string::npos) << text;
}

TEST_F(TwoPeJob, ACardLargerThanTheBoundBreaksTheProtocol) {
  const std::string card(bs::kMaxCard + 1, 'c');
  pe1.send(Msg::Publish, card.data(), card.size());
  EXPECT_EQ(pe1.next().first, "EOF");
  auto [type, text] = pe0.next();
  EXPECT_EQ(type, "Abort");
  EXPECT_NE(text.find("PE 1 (pid 1001 on fake) broke the bootstrap protocol: it published a card of 16385 bytes; a "
                      "card has at most 16384"), std::string::npos) << text;
}
