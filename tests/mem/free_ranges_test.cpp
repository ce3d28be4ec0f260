#include "mem/free_ranges.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace warpsim::mem {
namespace {

TEST(FreeRanges, FirstFitAndCoalescing) {
  FreeRanges r(100);
  EXPECT_EQ(r.take_contiguous(10), 0u);
  EXPECT_EQ(r.take_contiguous(10), 10u);
  EXPECT_EQ(r.take_contiguous(10), 20u);
  EXPECT_EQ(r.total_free(), 70u);
  r.give(10, 10);
  EXPECT_EQ(r.fragments(), 2u);
  EXPECT_EQ(r.take_contiguous(5), 10u);  // first fit reuses the hole
  r.give(10, 5);
  r.give(0, 10);   // merges right with [10, 20)
  r.give(20, 10);  // merges both sides: one range again
  EXPECT_EQ(r.fragments(), 1u);
  EXPECT_EQ(r.total_free(), 100u);
  EXPECT_EQ(r.take_contiguous(100), 0u);
  EXPECT_FALSE(r.take_contiguous(1).has_value());
}

TEST(FreeRanges, AlignmentUsesOrigin) {
  FreeRanges r(64);
  EXPECT_EQ(r.take_contiguous(1), 0u);
  // Units count from zero, but alignment is of origin + start: origin 3 makes unit 5 the first
  // aligned-to-8 unit.
  EXPECT_EQ(r.take_contiguous(4, 8, 3), 5u);
  EXPECT_EQ(r.take_contiguous(1), 1u);  // the padding before it stays free
  EXPECT_EQ(r.total_free(), 64u - 6u);
  EXPECT_FALSE(r.take_contiguous(8, 64, 0).has_value());  // no 64-aligned slot left with room
}

TEST(FreeRanges, TakeAnyGathersLowestPieces) {
  FreeRanges r(20);
  ASSERT_EQ(r.take_contiguous(20), 0u);
  r.give(15, 3);
  r.give(2, 2);
  r.give(8, 1);
  std::vector<std::pair<uint64_t, uint64_t>> got;
  EXPECT_FALSE(r.take_any(7, [&](uint64_t s, uint64_t n) { got.emplace_back(s, n); }));
  EXPECT_TRUE(got.empty());
  EXPECT_TRUE(r.take_any(4, [&](uint64_t s, uint64_t n) { got.emplace_back(s, n); }));
  EXPECT_EQ(got, (std::vector<std::pair<uint64_t, uint64_t>>{{2, 2}, {8, 1}, {15, 1}}));
  EXPECT_EQ(r.total_free(), 2u);
  EXPECT_EQ(r.take_contiguous(2), 16u);
}

}  // namespace
}  // namespace warpsim::mem
