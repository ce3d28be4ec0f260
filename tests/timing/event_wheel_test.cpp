// The event wheel must pop exactly what a binary heap ordered by (t, seq) pops, whatever the mix
// of near, far and late events.
#include "timing/event_wheel.hpp"

#include <gtest/gtest.h>

#include <random>

namespace warpsim::timing {
namespace {

struct Ev {
  uint64_t t, seq;
  uint32_t payload;
  bool operator>(const Ev& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

// Drives a wheel and a reference heap with the same pushes and pops; `spread` bounds how far
// ahead of the present an event lands, `late` is the chance of one earlier than the present.
void compare(uint32_t log2_buckets, uint64_t spread, double late, uint32_t seed) {
  EventWheel<Ev> wheel(log2_buckets);
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> ref;
  std::mt19937_64 rng(seed);
  uint64_t now = 0, seq = 0;
  for (int step = 0; step < 200000; ++step) {
    const bool push = ref.empty() || rng() % 100 < 55;
    if (push) {
      uint64_t t = now + rng() % spread;
      if (std::uniform_real_distribution<>(0, 1)(rng) < late && now > 0) t = now - 1 - rng() % std::min<uint64_t>(now, 50);
      Ev e{t, seq++, uint32_t(rng())};
      wheel.push(e);
      ref.push(e);
    } else {
      ASSERT_FALSE(wheel.empty());
      ASSERT_EQ(wheel.next_time(), ref.top().t);
      const Ev a = wheel.top(), b = ref.top();
      ASSERT_EQ(a.t, b.t);
      ASSERT_EQ(a.seq, b.seq);
      ASSERT_EQ(a.payload, b.payload);
      wheel.pop();
      ref.pop();
      now = std::max(now, a.t);
    }
    ASSERT_EQ(wheel.size(), ref.size());
  }
  while (!ref.empty()) {
    ASSERT_EQ(wheel.top().seq, ref.top().seq);
    wheel.pop();
    ref.pop();
  }
  EXPECT_TRUE(wheel.empty());
  EXPECT_EQ(wheel.next_time(), EventWheel<Ev>::kNone);
}

TEST(EventWheel, MatchesHeapWithinWindow) { compare(12, 1000, 0.0, 1); }
TEST(EventWheel, MatchesHeapBeyondWindow) { compare(6, 1000, 0.0, 2); }
TEST(EventWheel, MatchesHeapWithLateEvents) { compare(8, 300, 0.05, 3); }
TEST(EventWheel, MatchesHeapWithSameCycleBursts) { compare(4, 3, 0.0, 4); }

TEST(EventWheel, SameCycleEventsLeaveInPushOrder) {
  EventWheel<Ev> w(4);
  for (uint64_t i = 0; i < 10; ++i) w.push(Ev{i % 2 ? 100u : 5u, i, uint32_t(i)});  // 100 is beyond the window
  for (uint64_t want : {0, 2, 4, 6, 8, 1, 3, 5, 7, 9}) {
    EXPECT_EQ(w.top().seq, want);
    w.pop();
  }
}

}  // namespace
}  // namespace warpsim::timing
