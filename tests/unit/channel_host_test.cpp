// The proxy channel's slot accounting (ChannelHost): a ticket's slot goes back to the producers
// only once its command is taken and any return its producer waits for has been given and read;
// a slot held that way holds every later one (the producers reuse slots in ticket order).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

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
  ch.release_taken();
  EXPECT_EQ(consumed(ch), a);  // a pending, b unread
  ch.give_return(a, 1);
  read_return(ch, a);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), b);  // a read; b given, still unread
  read_return(ch, b);
  ch.release_taken();
  EXPECT_EQ(consumed(ch), c + 1);
}

TEST(ChannelHost, RandomOrderOfAnswersAroundASmallRing) {
  // Tickets wrap a 4-slot ring many times. Some commands are answered while they execute (as a
  // quiet is), some are held and answered later; answers are given and read in random order and
  // in different rounds. The producers may use a slot only after consumed has passed the ticket
  // before it in that slot.
  ChannelHost ch(4);
  const uint64_t cap = ch.capacity();
  std::mt19937_64 rng(5);
  std::vector<uint64_t> pending, unread;  // held and not answered; answered and not read
  uint64_t pushed = 0;
  auto pick = [&](std::vector<uint64_t>& v) {
    const size_t k = size_t(rng() % v.size());
    const uint64_t t = v[k];
    v.erase(v.begin() + long(k));
    return t;
  };
  for (int round = 0; round < 5000; ++round) {
    // Push while the ring has room, as channel_push waits for.
    while (pushed - consumed(ch) < cap && rng() % 3) {
      const uint64_t t = push(ch);
      ++pushed;
      switch (rng() % 3) {
        case 0:  // waits for nothing
          break;
        case 1:  // answered while it executes
          ch.give_return(t, t);
          unread.push_back(t);
          break;
        default:  // answered later
          ch.hold(t);
          pending.push_back(t);
      }
      take(ch);
    }
    if (!pending.empty() && rng() % 2) {
      const uint64_t t = pick(pending);
      ch.give_return(t, t);
      unread.push_back(t);
    }
    if (!unread.empty() && rng() % 2) {
      const uint64_t t = pick(unread);
      ASSERT_TRUE(answered(ch, t)) << "round " << round;
      ASSERT_EQ(ch.device()->returns[t & (cap - 1)].value, t);
      read_return(ch, t);
    }
    ch.release_taken();
    uint64_t oldest = pushed;
    for (uint64_t t : pending) oldest = std::min(oldest, t);
    for (uint64_t t : unread) oldest = std::min(oldest, t);
    ASSERT_EQ(consumed(ch), oldest) << "round " << round;
  }
}
