// The `warpsim` command. Subcommands map one-to-one to layers as they land; for now the PTX
// front end: `warpsim ptx check|print|roundtrip FILE...`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/summary.hpp"

namespace {

using namespace warpsim;

void print_errors(const ptx::ParseResult& r) {
  for (auto& e : r.errors) fmt::print(stderr, "{}\n", e.str());
}

int ptx_check(const std::vector<std::string>& files, bool quiet) {
  int rc = 0;
  for (auto& f : files) {
    auto r = ptx::parse_file(f);
    if (!r.ok()) {
      print_errors(r);
      fmt::print(stderr, "{}: {} error{}\n", f, r.errors.size(), r.errors.size() == 1 ? "" : "s");
      rc = 1;
      continue;
    }
    if (!quiet) fmt::print("{}", ptx::format_summary(ptx::summarize(*r.module), f));
  }
  return rc;
}

int ptx_print(const std::string& file, const std::string& out) {
  auto r = ptx::parse_file(file);
  if (!r.ok()) {
    print_errors(r);
    return 1;
  }
  std::string text = ptx::print(*r.module);
  if (out.empty() || out == "-") {
    fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  std::ofstream o(out, std::ios::binary);
  o << text;
  if (!o) {
    fmt::print(stderr, "cannot write '{}'\n", out);
    return 1;
  }
  return 0;
}

// parse -> print -> parse, and the two modules must be equal.
int ptx_roundtrip(const std::vector<std::string>& files) {
  int rc = 0;
  for (auto& f : files) {
    auto a = ptx::parse_file(f);
    if (!a.ok()) {
      print_errors(a);
      rc = 1;
      continue;
    }
    std::string text = ptx::print(*a.module);
    auto b = ptx::parse(text, f + " (printed)");
    if (!b.ok()) {
      print_errors(b);
      fmt::print(stderr, "{}: printed PTX does not parse\n", f);
      rc = 1;
      continue;
    }
    std::string why;
    if (!ptx::equal(*a.module, *b.module, &why)) {
      fmt::print(stderr, "{}: round trip differs: {}\n", f, why);
      rc = 1;
      continue;
    }
    fmt::print("{}: round trip ok\n", f);
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"warpsim: a cycle-level simulator of NVIDIA GPUs (A100 by default)"};
  app.set_version_flag("--version", fmt::format("warpsim {}", WARPSIM_VERSION));
  app.require_subcommand(1);

  auto* ptx_cmd = app.add_subcommand("ptx", "Work with PTX modules");
  ptx_cmd->require_subcommand(1);

  std::vector<std::string> check_files;
  bool quiet = false;
  auto* check = ptx_cmd->add_subcommand("check", "Parse PTX and print its kernels, parameters, registers and shared memory");
  check->add_option("files", check_files, "PTX files")->required()->check(CLI::ExistingFile);
  check->add_flag("-q,--quiet", quiet, "Only report errors");

  std::string print_file, print_out;
  auto* print = ptx_cmd->add_subcommand("print", "Parse PTX and print it back from the IR");
  print->add_option("file", print_file, "PTX file")->required()->check(CLI::ExistingFile);
  print->add_option("-o,--output", print_out, "Output file (default: stdout)");

  std::vector<std::string> rt_files;
  auto* rt = ptx_cmd->add_subcommand("roundtrip", "Check that parse(print(parse(file))) equals parse(file)");
  rt->add_option("files", rt_files, "PTX files")->required()->check(CLI::ExistingFile);

  CLI11_PARSE(app, argc, argv);

  if (check->parsed()) return ptx_check(check_files, quiet);
  if (print->parsed()) return ptx_print(print_file, print_out);
  if (rt->parsed()) return ptx_roundtrip(rt_files);
  return 0;
}
