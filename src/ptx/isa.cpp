#include "ptx/isa.hpp"

#include <array>
#include <string>
#include <unordered_map>

namespace warpsim::ptx {

namespace {

constexpr std::array<OpcodeInfo, size_t(Opcode::Count_)> kOpcodes = {{
#define PTX_OP(e, text, lo, hi) {text, lo, hi},
#include "opcodes.def"
#undef PTX_OP
}};

struct ModInfo {
  std::string_view name;
  ModClass cls;
};
constexpr std::array<ModInfo, size_t(Mod::Count_)> kMods = {{
#define PTX_MOD(e, text, cls) {text, ModClass::cls},
#include "modifiers.def"
#undef PTX_MOD
    {"<shape>", ModClass::Shape},
}};

template <typename E, size_t N, typename Name>
std::unordered_map<std::string_view, E> make_index(const std::array<Name, N>& table) {
  std::unordered_map<std::string_view, E> m;
  m.reserve(N * 2);
  for (size_t i = 0; i < N; ++i) m.emplace(table[i].name, E(i));
  return m;
}

constexpr std::array<std::string_view, size_t(Type::Count_)> kTypeNames = {
    "",     "b8",     "b16",  "b32",   "b64",  "b128", "u8",   "u16",   "u32",
    "u64",  "s8",     "s16",  "s32",   "s64",  "f16",  "f16x2", "bf16", "bf16x2",
    "tf32", "f32",    "f64",  "pred",  "e4m3", "e5m2", "e4m3x2", "e5m2x2",
    "texref", "samplerref", "surfref"};
constexpr std::array<uint8_t, size_t(Type::Count_)> kTypeSizes = {
    0, 1, 2, 4, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8, 2, 4, 2, 4, 4, 4, 8, 0, 1, 1, 2, 2, 0, 0, 0};

struct SRegInfo {
  std::string_view name;
  bool components;
  bool numbered;
};
constexpr std::array<SRegInfo, size_t(SReg::Count_)> kSRegs = {{
    {"%tid", true, false},
    {"%ntid", true, false},
    {"%laneid", false, false},
    {"%warpid", false, false},
    {"%nwarpid", false, false},
    {"%ctaid", true, false},
    {"%nctaid", true, false},
    {"%smid", false, false},
    {"%nsmid", false, false},
    {"%gridid", false, false},
    {"%lanemask_eq", false, false},
    {"%lanemask_le", false, false},
    {"%lanemask_lt", false, false},
    {"%lanemask_ge", false, false},
    {"%lanemask_gt", false, false},
    {"%clock", false, false},
    {"%clock_hi", false, false},
    {"%clock64", false, false},
    {"%pm", false, true},
    {"%pm_64", false, true},  // spelled %pm<N>_64
    {"%envreg", false, true},
    {"%globaltimer", false, false},
    {"%globaltimer_lo", false, false},
    {"%globaltimer_hi", false, false},
    {"%reserved_smem_offset_begin", false, false},
    {"%reserved_smem_offset_end", false, false},
    {"%reserved_smem_offset_cap", false, false},
    {"%reserved_smem_offset_", false, true},  // %reserved_smem_offset_<2>
    {"WARP_SZ", false, false},                // predefined identifier (PTX ISA 4.4)
    {"%total_smem_size", false, false},
    {"%aggr_smem_size", false, false},
    {"%dynamic_smem_size", false, false},
    {"%is_explicit_cluster", false, false},
    {"%clusterid", true, false},
    {"%nclusterid", true, false},
    {"%cluster_ctaid", true, false},
    {"%cluster_nctaid", true, false},
    {"%cluster_ctarank", false, false},
    {"%cluster_nctarank", false, false},
    {"%current_graph_exec", false, false},
}};

}  // namespace

const OpcodeInfo& opcode_info(Opcode op) { return kOpcodes[size_t(op)]; }

std::optional<Opcode> find_opcode(std::string_view name) {
  static const auto index = make_index<Opcode>(kOpcodes);
  auto it = index.find(name);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

bool has_dotted_opcodes(std::string_view first) {
  static const auto firsts = [] {
    std::unordered_map<std::string_view, bool> m;
    for (auto& o : kOpcodes)
      if (auto dot = o.name.find('.'); dot != std::string_view::npos) m.emplace(o.name.substr(0, dot), true);
    return m;
  }();
  return firsts.count(first) != 0;
}

std::string_view mod_name(Mod m) { return kMods[size_t(m)].name; }
ModClass mod_class(Mod m) { return kMods[size_t(m)].cls; }

std::optional<Mod> find_mod(std::string_view text) {
  static const auto index = [] {
    auto m = make_index<Mod>(kMods);
    m.erase("<shape>");
    return m;
  }();
  auto it = index.find(text);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

std::string_view type_name(Type t) { return kTypeNames[size_t(t)]; }

std::optional<Type> find_type(std::string_view text) {
  for (size_t i = 1; i < kTypeNames.size(); ++i)
    if (kTypeNames[i] == text) return Type(i);
  return std::nullopt;
}

unsigned type_size(Type t) { return kTypeSizes[size_t(t)]; }

std::optional<Type> mod_type(Mod m) {
  if (mod_class(m) != ModClass::Type) return std::nullopt;
  return find_type(mod_name(m));
}

std::string_view space_name(Space s) {
  switch (s) {
    case Space::None: return "";
    case Space::Reg: return "reg";
    case Space::SReg: return "sreg";
    case Space::Const: return "const";
    case Space::Global: return "global";
    case Space::Local: return "local";
    case Space::Param: return "param";
    case Space::Shared: return "shared";
    case Space::Tex: return "tex";
    case Space::Generic: return "generic";
  }
  return "";
}

std::optional<SRegName> find_sreg(std::string_view name) {
  if (name == "WARP_SZ") return SRegName{SReg::WarpSz, -1};
  if (name.size() < 2 || name[0] != '%') return std::nullopt;
  static const auto index = [] {
    std::unordered_map<std::string_view, SReg> m;
    for (size_t i = 0; i < kSRegs.size(); ++i)
      if (!kSRegs[i].numbered) m.emplace(kSRegs[i].name, SReg(i));
    return m;
  }();
  if (auto it = index.find(name); it != index.end()) return SRegName{it->second, -1};
  // Numbered families: %envreg<0..31>, %pm<0..7>, %pm<0..7>_64, %reserved_smem_offset_<0..1>.
  auto numbered = [&](std::string_view prefix, std::string_view suffix, int limit,
                      SReg r) -> std::optional<SRegName> {
    if (name.size() <= prefix.size() + suffix.size() || name.substr(0, prefix.size()) != prefix ||
        name.substr(name.size() - suffix.size()) != suffix)
      return std::nullopt;
    std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.empty() || digits.size() > 2) return std::nullopt;
    int v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v >= limit || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
    return SRegName{r, int8_t(v)};
  };
  if (auto r = numbered("%envreg", "", 32, SReg::Envreg)) return r;
  if (auto r = numbered("%pm", "_64", 8, SReg::Pm64)) return r;
  if (auto r = numbered("%pm", "", 8, SReg::Pm)) return r;
  if (auto r = numbered("%reserved_smem_offset_", "", 2, SReg::ResvSmemOffset2)) return r;
  return std::nullopt;
}

std::string sreg_spelling(SReg r, int index) {
  switch (r) {
    case SReg::Pm64: return "%pm" + std::to_string(index) + "_64";
    case SReg::Pm:
    case SReg::Envreg:
    case SReg::ResvSmemOffset2:
      return std::string(kSRegs[size_t(r)].name) + std::to_string(index);
    default: return std::string(kSRegs[size_t(r)].name);
  }
}

bool sreg_has_components(SReg r) { return kSRegs[size_t(r)].components; }

bool writes_first_operand(Opcode op) {
  switch (op) {
    case Opcode::St: case Opcode::StBulk: case Opcode::Red: case Opcode::Bar: case Opcode::Barrier:
    case Opcode::Membar: case Opcode::Fence: case Opcode::Bra: case Opcode::BrxIdx: case Opcode::Call:
    case Opcode::Ret: case Opcode::Exit: case Opcode::Prefetch: case Opcode::Prefetchu: case Opcode::CpAsync:
    case Opcode::CpAsyncCommitGroup: case Opcode::CpAsyncWaitGroup: case Opcode::CpAsyncWaitAll:
    case Opcode::CpAsyncMbarrierArrive: case Opcode::MbarrierInit: case Opcode::MbarrierInval:
    case Opcode::MbarrierExpectTx: case Opcode::MbarrierCompleteTx: case Opcode::MbarrierArriveDrop:
    case Opcode::Stmatrix: case Opcode::WmmaStore: case Opcode::Sust: case Opcode::Sured:
    case Opcode::Applypriority: case Opcode::Discard: case Opcode::Griddepcontrol: case Opcode::Stackrestore:
    case Opcode::CpAsyncBulk: case Opcode::CpReduceAsyncBulk: case Opcode::CpAsyncBulkPrefetch:
    case Opcode::CpAsyncBulkTensor: case Opcode::CpReduceAsyncBulkTensor: case Opcode::CpAsyncBulkPrefetchTensor:
    case Opcode::CpAsyncBulkCommitGroup: case Opcode::CpAsyncBulkWaitGroup: case Opcode::MultimemSt:
    case Opcode::MultimemRed:
      return false;
    default:
      return true;
  }
}

}  // namespace warpsim::ptx
