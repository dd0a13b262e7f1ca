// The proxy channel's slot accounting (ChannelHost): a ticket's slot goes back to the producers
// only once its command is taken and any return its producer waits for has been given and read;
// a slot held that way holds every later one (the producers reuse slots in ticket order).
#include <gtest/gtest.h>

#include <cstdint>
#include <algorithm>
#include <deque>
#include <random>

#include "transports/proxy/channel_host.hpp"

namespace {

using gshmem::ChannelHost;

// The producer's side, as channel_push and channel_call do it (one thread here).
uint64_t push(ChannelHost& ch) {
  gshmem::detail::ChannelDevice* d = ch.device();
  const uint64_t t = (*d->head)++;
  d->ring[t & d->mask].seq = t + 1;
  return t;
}
bool answered(ChannelHost& ch, uint64_t t) {
  return ch.device()->returns[t & ch.device()->mask].tag == t + 1;
}
void read_return(ChannelHost& ch, uint64_t t) {
  ch.device()->returns[t & ch.device()->mask].tag = 0;
}
uint64_t consumed(ChannelHost& ch) {
  return *ch.device()->consumed;
}

// The proxy's side: takes the next command.
void take(ChannelHost& ch) {
  ASSERT_NE(ch.peek(), nullptr);
  ch.pop();
}

}  // namespace

TEST(ChannelHost, ReleasesTakenCommandsThatWaitForNothing) {
  ChannelHost ch(8);
  for (int i = 0; i < 3; ++i) push(ch);
  take(ch);
  take(ch);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), 2u);  // the third is not taken yet
  take(ch);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), 3u);
}

TEST(ChannelHost, HoldsAReturnUntilItIsGivenAndRead) {
  ChannelHost ch(8);
  const uint64_t t = push(ch);
  ch.hold(t);
  take(ch);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), t);  // pending: its producer waits
  ch.give_return(t, 42);
  ASSERT_TRUE(answered(ch, t));
  EXPECT_EQ(ch.device()->returns[t & ch.device()->mask].value, 42u);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), t);  // given, not read yet: the return slot is still in use
  read_return(ch, t);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), t + 1);
}

TEST(ChannelHost, AnswerWhileTakingHoldsLikeALaterOne) {
  // A command answered while it executes (a blocking put whose source was copied, a quiet):
  // give_return before pop, without hold.
  ChannelHost ch(8);
  const uint64_t t = push(ch);
  ch.give_return(t, 0);
  take(ch);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), t);
  read_return(ch, t);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), t + 1);
}

TEST(ChannelHost, LaterTicketsWaitBehindTheOldestHeld) {
  ChannelHost ch(8);
  const uint64_t a = push(ch), b = push(ch), c = push(ch);
  ch.hold(a);
  take(ch);
  ch.give_return(b, 7);
  take(ch);
  take(ch);
  read_return(ch, b);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), a);
  ch.give_return(a, 1);
  read_return(ch, a);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), c + 1);
}

TEST(ChannelHost, RandomOrderOfAnswersAroundASmallRing) {
  // Tickets wrap a 4-slot ring many times; returns are given and read in a random order. The
  // producers may use a slot only after consumed has passed the ticket before it in that slot.
  ChannelHost ch(4);
  const uint64_t cap = ch.capacity();
  std::mt19937_64 rng(5);
  std::deque<uint64_t> waiting;  // held tickets, not yet answered and read
  uint64_t pushed = 0;
  for (int round = 0; round < 2000; ++round) {
    // Push while the ring has room, as channel_push waits for.
    while (pushed - consumed(ch) < cap && rng() % 3) {
      const uint64_t t = push(ch);
      ++pushed;
      if (rng() % 2) {
        ch.hold(t);
        waiting.push_back(t);
      }
      take(ch);
    }
    if (!waiting.empty() && rng() % 2) {
      const size_t k = size_t(rng() % waiting.size());
      const uint64_t t = waiting[k];
      ch.give_return(t, t);
      read_return(ch, t);
      waiting.erase(waiting.begin() + long(k));
    }
    ch.release_taken();
    uint64_t oldest = pushed;
    for (uint64_t t : waiting) oldest = std::min(oldest, t);
    ASSERT_EQ(consumed(ch), oldest) << "round " << round;
  }
}
