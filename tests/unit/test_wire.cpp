#include <gtest/gtest.h>

#include <arpa/inet.h>

#include <cstring>

#include "bootstrap/wire.hpp"
#include "core/error.hpp"

using tilecomm::bootstrap::Rendezvous;

TEST(Rendezvous, RoundTripsThroughText) {
  Rendezvous r = Rendezvous::with_random_cookie(htonl(0x7f000001), 4555);
  std::string text = r.to_string();
  EXPECT_EQ(text.rfind("tcp://127.0.0.1:4555/", 0), 0u) << text;
  Rendezvous back = Rendezvous::parse(text, "test");
  EXPECT_EQ(back.addr, r.addr);
  EXPECT_EQ(back.port, 4555);
  EXPECT_EQ(0, memcmp(back.cookie, r.cookie, sizeof r.cookie));
}

TEST(Rendezvous, CookiesDiffer) {
  Rendezvous a = Rendezvous::with_random_cookie(0, 1), b = Rendezvous::with_random_cookie(0, 1);
  EXPECT_NE(0, memcmp(a.cookie, b.cookie, sizeof a.cookie));
}

TEST(Rendezvous, RejectsMalformedText) {
  for (const char* bad : {"", "tcp://127.0.0.1:4555/", "tcp://127.0.0.1:4555/abc", "udp://1.2.3.4:5/00112233445566778899aabbccddeeff",
                          "tcp://127.0.0.1:0/00112233445566778899aabbccddeeff",
                          "tcp://127.0.0.1:70000/00112233445566778899aabbccddeeff",
                          "tcp://300.0.0.1:5/00112233445566778899aabbccddeeff",
                          "tcp://127.0.0.1:5/00112233445566778899aabbccddeeff00"})
    EXPECT_THROW(Rendezvous::parse(bad, "test"), tilecomm::Error) << bad;
}
