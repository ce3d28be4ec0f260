// The typed PTX module IR the parser produces and the printer emits.
//
// Names of registers are resolved to per-function indices at parse time; symbols (variables,
// functions, labels, parameters) keep their name and carry what they resolved to. Source order of
// everything that can be printed (declarations, labels, .loc, nested { } blocks) is kept in
// statement lists, so print(parse(text)) is valid PTX and parse(print(m)) equals m.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/isa.hpp"

namespace warpsim::ptx {

// Position in the PTX text (1-based line and column).
struct SrcPos {
  uint32_t line = 0;
  uint32_t col = 0;
};

// ---------------------------------------------------------------- operands

// A register selector (.x, .b0, .h10, .b3210) or the .unified address suffix, stored inline: an
// operand is copied several times while parsing, and a std::string here made that the hot spot.
struct Selector {
  static constexpr size_t kMax = 7;
  char s[kMax] = {};
  uint8_t n = 0;
  bool empty() const { return n == 0; }
  size_t size() const { return n; }
  char operator[](size_t i) const { return s[i]; }
  std::string_view view() const { return {s, n}; }
  operator std::string_view() const { return view(); }
  Selector& operator=(std::string_view v) {
    n = uint8_t(v.size() < kMax ? v.size() : kMax);
    for (size_t i = 0; i < n; ++i) s[i] = v[i];
    return *this;
  }
  bool operator==(const Selector& o) const { return view() == o.view(); }
  bool operator==(std::string_view o) const { return view() == o; }
};

enum class SymKind : uint8_t { Unresolved, Variable, LocalVariable, Param, Function, Label,
                               Prototype, BranchTargets, CallTargets };

struct Operand {
  enum class Kind : uint8_t {
    Reg,        // function register: reg, selector, negated (for !p)
    SpecialReg, // sreg (+ sreg_index), selector holds .x/.y/.z
    Imm,        // integer immediate (ival)
    F32,        // 0fXXXXXXXX (bits in ival)
    F64,        // 0dXXXXXXXXXXXXXXXX or a decimal literal (bits in ival)
    Symbol,     // name (+ ival offset): variable, function, label, param
    Address,    // [base + ival]; base in elems[0] (Reg, Symbol, Imm) or none when elems empty
    MemList,    // [a, b, {c, d}]: texture/surface/tensor operands
    Vector,     // {a, b, c, d}
    Pair,       // a|b
    CallList,   // (a, b) argument/return list of call
    Sink,       // _
  };
  Kind kind = Kind::Imm;
  bool negated = false;    // !%p
  bool minus = false;      // -%r (video vmad operands)
  SReg sreg = SReg::Tid;
  int8_t sreg_index = -1;
  uint32_t reg = 0;        // index into Function::regs
  Selector selector;       // .x, .b0, .h1, .b3210 (video / vector component); "unified" after [a]
  int64_t ival = 0;
  std::string name;        // symbol name
  SymKind sym = SymKind::Unresolved;
  uint32_t sym_index = 0;  // index in the table sym names
  std::vector<Operand> elems;
  SrcPos pos;
};

// ---------------------------------------------------------------- instructions

struct Shape {
  uint16_t m = 0, n = 0, k = 0;
};

// Source-line mapping from the nearest preceding .loc directive.
struct LineInfo {
  uint32_t file = 0;  // 0: none
  uint32_t line = 0;
  uint32_t col = 0;
  bool operator==(const LineInfo&) const = default;
};

struct Instruction {
  static constexpr unsigned kMaxMods = 16;
  Opcode op = Opcode::Add;
  uint8_t nmods = 0;
  std::array<Mod, kMaxMods> mods{};  // in source order
  Shape shape;                       // when a Mod::Shape is present
  bool has_guard = false;
  bool guard_negated = false;
  uint32_t guard_reg = 0;
  std::vector<Operand> operands;
  SrcPos pos;
  LineInfo line;

  bool has(Mod m) const {
    for (unsigned i = 0; i < nmods; ++i)
      if (mods[i] == m) return true;
    return false;
  }
  // The type modifiers in source order (cvt.f32.s32 -> {F32, S32}); Type::None past the end.
  std::array<Type, 4> types() const;
};

// ---------------------------------------------------------------- declarations

enum class Linkage : uint8_t { None, Visible, Extern, Weak, Common };

// An initialiser value: a brace list, a number, or a symbol address (optionally generic()).
// Mask: 0xff00(sym) takes one byte of an address; ival is the mask, elems[0] the address.
struct Init {
  enum class Kind : uint8_t { List, Int, F32, F64, Symbol, Generic, Mask } kind = Kind::Int;
  int64_t ival = 0;      // value, float bits or symbol offset
  std::string name;      // symbol for Symbol/Generic/Mask
  std::vector<Init> elems;
  bool operator==(const Init&) const = default;
};

struct Variable {
  std::string name;
  Space space = Space::Global;
  Linkage linkage = Linkage::None;
  uint32_t align = 0;          // 0: natural alignment
  Type type = Type::B32;
  uint8_t vec = 1;             // .v2/.v4/.v8
  std::vector<uint64_t> dims;  // array dimensions; 0 = unsized ([])
  bool has_init = false;
  Init init;
  // Texture/sampler/surface reference initialisers: name = value fields.
  std::vector<std::pair<std::string, std::string>> fields;
  bool managed = false;            // .attribute(.managed)
  std::vector<std::string> attrs;  // other .attribute(...) text, verbatim
  // .param attributes of kernel parameters: .ptr [.space] [.align N]
  bool ptr = false;
  Space ptr_space = Space::None;
  uint32_t ptr_align = 0;
  SrcPos pos;

  uint64_t element_count() const;  // product of dims (0 if unsized), saturating
  uint64_t size_bytes() const;     // element_count * vec * type size, saturating
};

// A register: one name, whether declared alone or as one of %r<N>. Its name is that of its
// declaration item plus, for ranges, its number (see Function::reg_name).
struct Register {
  Type type = Type::B32;
  uint8_t vec = 1;
  uint32_t decl = 0;    // index in Function::reg_decls
  uint32_t item = 0;    // index in RegDecl::items
  int32_t number = -1;  // position in a %r<N> range, -1 for a plain name
};

// One .reg directive: `.reg .b32 %r<18>, %x;` declares registers [first, first+count).
struct RegDecl {
  Type type = Type::B32;
  uint8_t vec = 1;
  struct Item {
    std::string name;     // prefix for ranges
    int64_t range = -1;   // N of name<N>, -1 for a plain name
    uint32_t first = 0;   // index of its first register in Function::regs
  };
  std::vector<Item> items;
};

struct Label {
  std::string name;
  uint32_t instr = 0;  // index of the instruction it marks (== instrs.size() at the end)
};

// .loc file line col [, function_name label, inlined_at file line col]
struct LocDirective {
  LineInfo at;
  std::string function_name;  // empty when absent
  bool has_inlined_at = false;
  LineInfo inlined_at;
  bool operator==(const LocDirective&) const = default;
};

// A prototype label: `proto: .callprototype (.param .b32 _) _ (.param .b64 _);`
struct CallPrototype {
  std::string name;
  std::vector<Variable> rets;
  std::vector<Variable> params;
  bool noreturn = false;
};

// `name: .branchtargets L1, L2;` or `name: .calltargets f, g;`
struct TargetList {
  std::string name;
  bool calls = false;
  std::vector<std::string> targets;
};

struct Statement {
  enum class Kind : uint8_t {
    Instr, Label, BlockBegin, BlockEnd, RegDecl, LocalVar, Loc, Pragma, Prototype, Targets
  };
  Kind kind;
  uint32_t index;  // into the matching Function vector; unused for BlockBegin/End
};

struct PerfDirectives {
  std::array<uint32_t, 3> maxntid{0, 0, 0};  // 0: absent
  std::array<uint32_t, 3> reqntid{0, 0, 0};
  std::array<uint32_t, 3> reqnctapercluster{0, 0, 0};
  uint32_t minnctapersm = 0;
  uint32_t maxnctapersm = 0;
  uint32_t maxnreg = 0;
  uint32_t maxclusterrank = 0;
  bool explicitcluster = false;
  uint8_t maxntid_dims = 0, reqntid_dims = 0, reqnctapercluster_dims = 0;
  bool operator==(const PerfDirectives&) const = default;
};

struct Function {
  std::string name;
  bool is_entry = false;
  Linkage linkage = Linkage::None;
  bool noreturn = false;
  bool has_body = false;
  std::vector<Variable> rets;    // .func return parameters
  std::vector<Variable> params;
  PerfDirectives perf;
  std::vector<std::string> header_pragmas;  // .pragma between header and body
  std::vector<std::string> attrs;           // .attribute(...) on the function

  std::vector<Register> regs;
  std::vector<RegDecl> reg_decls;
  std::vector<Variable> locals;   // variables declared in the body (.local/.shared/.param/...)
  std::vector<Instruction> instrs;
  std::vector<Label> labels;
  std::vector<LocDirective> locs;
  std::vector<std::string> pragmas;
  std::vector<CallPrototype> prototypes;
  std::vector<TargetList> target_lists;
  std::vector<Statement> body;
  SrcPos pos;

  std::string reg_name(uint32_t reg) const;
};

struct FileDirective {
  uint32_t id = 0;
  std::string path;
  bool has_meta = false;  // .file 1 "a.cu", 1700000000, 1234
  uint64_t timestamp = 0;
  uint64_t size = 0;
  bool operator==(const FileDirective&) const = default;
};

// A .section block of debug data: labels and .b8/.b16/.b32/.b64 rows of numbers or symbol(+off)
// expressions, kept as written so the printer can emit it again.
struct SectionItem {
  bool is_label = false;
  std::string label;
  Type type = Type::B8;
  struct Value {
    int64_t num = 0;
    std::string sym;  // empty: plain number; else sym + num (or sym - other when minus_sym set)
    std::string minus_sym;
    bool operator==(const Value&) const = default;
  };
  std::vector<Value> values;
  bool operator==(const SectionItem&) const = default;
};
struct Section {
  std::string name;
  std::vector<SectionItem> items;
  bool operator==(const Section&) const = default;
};

struct Alias {
  std::string alias, target;
  bool operator==(const Alias&) const = default;
};

struct TopLevel {
  enum class Kind : uint8_t { Variable, Function, File, Section, Alias, Pragma } kind;
  uint32_t index;
};

struct Module {
  std::string filename;  // for diagnostics
  uint32_t version_major = 0, version_minor = 0;
  std::vector<std::string> targets;
  uint32_t address_size = 64;
  bool has_address_size = false;
  std::vector<Variable> vars;
  std::vector<Function> funcs;
  std::vector<FileDirective> files;
  std::vector<Section> sections;
  std::vector<Alias> aliases;
  std::vector<std::string> pragmas;
  std::vector<TopLevel> order;

  const Function* find_function(std::string_view name) const;
  const Variable* find_variable(std::string_view name) const;
};

// Structural equality ignoring source positions. On inequality, *why (if given) names the first
// difference ("function k: instruction 12: operand 1 differs").
bool equal(const Module& a, const Module& b, std::string* why = nullptr);

}  // namespace warpsim::ptx
