// A module the simulated GPU's architecture cannot run fails to load, naming the instruction and
// the machine: warp-level matrix instructions on the G80 (sm_10, no tensor cores), sm_80-only forms
// on the V100 (sm_70), while each machine loads the forms it has.
#include <gtest/gtest.h>

#include <string>

#include "runtime/device.hpp"
#include "runtime/gpu_spec.hpp"

using namespace warpsim;

namespace {

std::string module_with(const std::string& body) {
  return ".version 8.7\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n"
         "  .reg .b32 %r<16>;\n  .reg .f32 %f<16>;\n  .reg .b64 %rd<4>;\n  .shared .align 16 .b8 sm[512];\n"
         "  ld.param.u64 %rd1, [p];\n  mov.u32 %r15, sm;\n" +
         body + "\n  ret;\n}\n";
}

// Loads `body` on the built-in machine `gpu`; returns the load errors ("" when it loaded).
std::string load_on(const std::string& gpu, const std::string& body) {
  runtime::GpuSpec spec;
  std::string err;
  EXPECT_TRUE(runtime::gpu_spec_load(gpu, {}, spec, err)) << err;
  runtime::Device dev(spec);
  std::string errors;
  runtime::Module* m = dev.load_ptx(module_with(body), "t.ptx", errors);
  if (m) dev.unload(m);
  return m ? std::string() : errors.empty() ? "(no message)" : errors;
}

const std::string kMma16816 =
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, {%r4, %r5}, "
    "{%f4, %f5, %f6, %f7};";
const std::string kMmaSp =
    "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, {%r0, %r1, %r2, %r3}, "
    "{%r4, %r5, %r6, %r7}, {%f4, %f5, %f6, %f7}, %r8, 0;";
const std::string kMma884 =
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}, {%r0, %r1}, {%r2, %r3}, "
    "{%f8, %f9, %f10, %f11, %f12, %f13, %f14, %f15};";
const std::string kWmmaLoad = "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, [%rd1], 16;";
const std::string kWmmaS8 = "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r0, %r1}, [%rd1], 16;";
const std::string kLdmatrix = "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%r15];";

TEST(Arch, G80RejectsTensorInstructionsByName) {
  struct Case {
    std::string body, name, need;
  } cases[] = {{kMma16816, "mma.sync.m16n8k16", "sm_80"}, {kMmaSp, "mma.sp.m16n8k32", "sm_80"},
               {kMma884, "mma.sync.m8n8k4", "sm_70"},    {kWmmaLoad, "wmma.load.m16n16k16", "sm_70"},
               {kLdmatrix, "ldmatrix.m8n8", "sm_75"}};
  for (auto& c : cases) {
    SCOPED_TRACE(c.body);
    std::string e = load_on("g80", c.body);
    EXPECT_NE(e.find(c.name + " needs " + c.need + " or later"), std::string::npos) << e;
    EXPECT_NE(e.find("GeForce 8800 Ultra is sm_10"), std::string::npos) << e;
    EXPECT_NE(e.find("t.ptx:"), std::string::npos) << e;  // file:line:col of the instruction
  }
}

TEST(Arch, V100HasVoltaTensorFormsOnly) {
  EXPECT_EQ(load_on("v100", kMma884), "");
  EXPECT_EQ(load_on("v100", kWmmaLoad), "");
  std::string e = load_on("v100", kMmaSp);
  EXPECT_NE(e.find("mma.sp.m16n8k32 needs sm_80 or later"), std::string::npos) << e;
  e = load_on("v100", kWmmaS8);  // integer wmma came with sm_72
  EXPECT_NE(e.find("needs sm_72 or later"), std::string::npos) << e;
  EXPECT_NE(e.find("is sm_70"), std::string::npos) << e;
}

TEST(Arch, A100LoadsEverySm80Form) {
  for (const std::string* b : {&kMma16816, &kMmaSp, &kMma884, &kWmmaLoad, &kWmmaS8, &kLdmatrix}) EXPECT_EQ(load_on("a100", *b), "") << *b;
}

}  // namespace
