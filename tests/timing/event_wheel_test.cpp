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

// ahead(k): the next event and those after it in the present cycle's bucket, in the order they
// will pop; none past the bucket (another cycle's events, or far-heap events, are not named).
namespace warpsim::timing {
namespace {
TEST(EventWheel, AheadNamesTheNextEventsOfTheCycle) {
  EventWheel<Ev> w(4);
  for (uint64_t i = 0; i < 4; ++i) w.push(Ev{3, i, uint32_t(10 + i)});
  w.push(Ev{4, 4, 99});
  w.push(Ev{40, 5, 98});  // beyond the window: the far heap
  EXPECT_EQ(w.top().payload, 10u);
  ASSERT_NE(w.ahead(1), nullptr);
  EXPECT_EQ(w.ahead(1)->payload, 11u);
  EXPECT_EQ(w.ahead(3)->payload, 13u);
  EXPECT_EQ(w.ahead(4), nullptr);  // the cycle-4 event is in another bucket
  w.pop();
  EXPECT_EQ(w.ahead(0)->payload, 11u);  // after a pop: ahead(0) is the new top
  w.push(Ev{3, 6, 14});                 // a same-cycle push joins the end of the bucket
  EXPECT_EQ(w.ahead(3)->payload, 14u);
  for (uint32_t want : {11u, 12u, 13u, 14u}) {
    EXPECT_EQ(w.top().payload, want);
    w.pop();
  }
  EXPECT_EQ(w.ahead(0), nullptr);  // the bucket is empty; the next event is another cycle's
  EXPECT_EQ(w.top().payload, 99u);
  EXPECT_EQ(w.ahead(1), nullptr);
}
}  // namespace
}  // namespace warpsim::timing

// A cycle's events span several chunks of the pool: ahead() crosses into the next chunk, and the
// chunks of emptied buckets are reused.
namespace warpsim::timing {
namespace {
TEST(EventWheel, AheadCrossesChunks) {
  EventWheel<Ev> w(8);  // every round's cycle inside the window
  for (int round = 0; round < 3; ++round) {
    const uint64_t t = 5 + uint64_t(round) * 100;
    for (uint32_t i = 0; i < 20; ++i) w.push(Ev{t, uint64_t(round) * 100 + i, i});
    for (uint32_t i = 0; i < 20; ++i) {
      ASSERT_EQ(w.top().payload, i);
      for (uint32_t k = 0; k < 6; ++k) {
        const Ev* a = w.ahead(k);
        if (i + k < 20) {
          ASSERT_NE(a, nullptr) << i << " " << k;
          EXPECT_EQ(a->payload, i + k);
        } else {
          EXPECT_EQ(a, nullptr) << i << " " << k;
        }
      }
      w.pop();
    }
    EXPECT_TRUE(w.empty());
  }
}
}  // namespace
}  // namespace warpsim::timing
