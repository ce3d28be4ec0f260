// The `warpsim` command. Subcommands map one-to-one to layers as they land; for now the PTX
// front end: `warpsim ptx check|print|roundtrip FILE...`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/program_check.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/summary.hpp"
#include "config/config.hpp"
#include "runtime/gpu_spec.hpp"

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

// ---------------------------------------------------------------- warpsim run / gpus
// `warpsim run [--gpu a100] [--mode timing|functional] [--quiet] -- PROGRAM ARGS...` runs an unmodified
// CUDA program, built as nvcc builds it (static runtime, which reaches warpsim through its libcuda.so.1)
// or with -cudart shared, with warpsim's libraries first on LD_LIBRARY_PATH; options reach the
// library as WARPSIM_* environment variables.

// The simulator runs inside the program's process, so its heap is the program's glibc heap. The
// timing model allocates tens of MB of small objects (warps, register windows, cache sets, miss
// entries) on first use, and on a VM every 4 KB page fault costs microseconds: 6,200 faults were
// a seventh of saxpy's time. glibc.malloc.hugetlb=1 (glibc >= 2.35; older ones ignore it) has malloc
// madvise its heap for transparent huge pages, where the kernel's THP mode is "madvise" or
// "always": 1,600 faults, timing-mode kernels 8-14% faster (docs/performance.md). A hugetlb
// setting of the user's own wins; WARPSIM_MALLOC_THP=0 leaves the environment alone.
void set_malloc_tunables() {
  if (const char* off = std::getenv("WARPSIM_MALLOC_THP"); off && std::string(off) == "0") return;
  std::string t;
  if (const char* old = std::getenv("GLIBC_TUNABLES"); old && *old) t = old;
  if (t.find("glibc.malloc.hugetlb") != std::string::npos) return;
  t += (t.empty() ? "" : ":") + std::string("glibc.malloc.hugetlb=1");
  setenv("GLIBC_TUNABLES", t.c_str(), 1);
}

// The folder holding libcudart.so.13 (the build tree's src/cudart, or lib/warpsim when installed),
// found relative to this executable. Empty if none.
std::string find_cudart_dir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  const auto dir = exe.parent_path();
  for (auto cand : {dir / "src" / "cudart", dir / ".." / "lib" / "warpsim", dir})
    if (std::filesystem::exists(cand / "libcudart.so.13", ec))
      return std::filesystem::weakly_canonical(cand, ec).string();
  return {};
}

// Loads the machine (a built-in name or a .toml path, with --set overrides); prints the loader's
// message ("unknown GPU 'x' (built-in: ...)", "a100.toml: sm.max_warps: ...") and returns false if
// it does not load or validate.
bool check_gpu(const char* cmd, const std::string& gpu, const std::vector<std::string>& overrides,
               runtime::GpuSpec& spec) {
  std::string error;
  if (runtime::gpu_spec_load(gpu, overrides, spec, error)) return true;
  fmt::print(stderr, "{}: {}\n", cmd, error);
  if (error.rfind("unknown GPU", 0) == 0) fmt::print(stderr, "{}: `warpsim gpus` lists the built-in machines\n", cmd);
  return false;
}

std::string json_escape(const std::string& v) {
  std::string o = "\"";
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') o += '\\', o += char(c);
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c < 0x20) o += fmt::format("\\u{:04x}", c);
    else o += char(c);
  }
  return o + "\"";
}

// DIR/report.json: the program, its exit status and the simulation's records (which the library
// wrote to DIR/.simulation.json when the program exited).
bool write_report(const std::string& dir, const std::string& gpu, const std::vector<std::string>& argv, int exit_code,
                  int signal) {
  namespace fs = std::filesystem;
  const fs::path sim = fs::path(dir) / ".simulation.json";
  std::string body;
  {
    std::ifstream in(sim, std::ios::binary);
    if (in) body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::error_code ec;
  fs::remove(sim, ec);
  while (!body.empty() && (body.back() == '\n' || body.back() == ' ')) body.pop_back();
  // The library's object without its braces, spliced into ours; a program that never used the
  // device leaves none.
  if (body.size() >= 2 && body.front() == '{' && body.back() == '}') body = body.substr(1, body.size() - 2);
  else
    body = "\"gpu\": " + json_escape(gpu) + ", \"mode\": \"functional\", \"kernels\": [], \"totals\": {\"kernels\": 0, "
           "\"faulted\": 0, \"warp_instructions\": 0, \"thread_instructions\": 0, \"simulated_ns\": 0, "
           "\"registers_estimated\": false}";
  std::string args;
  for (auto& a : argv) args += (args.empty() ? "" : ", ") + json_escape(a);
  std::string out = fmt::format("{{\"warpsim_version\": {}, \"program\": [{}], \"exit_code\": {}, \"signal\": {},\n  {}\n}}\n",
                                json_escape(WARPSIM_VERSION), args, exit_code, signal ? std::to_string(signal) : "null",
                                body);
  const fs::path path = fs::path(dir) / "report.json";
  std::ofstream o(path, std::ios::binary);
  o << out;
  if (!o) {
    fmt::print(stderr, "warpsim run: cannot write {}\n", path.string());
    return false;
  }
  fmt::print(stderr, "warpsim: report written to {}\n", path.string());
  return true;
}

int run_program(std::string gpu, const std::vector<std::string>& overrides, const std::string& mode, bool quiet,
                const std::string& cache_control, const std::string& report, const std::vector<std::string>& argv) {
  if (argv.empty()) {
    fmt::print(stderr, "warpsim run: no program given (usage: warpsim run [options] -- PROGRAM ARGS...)\n");
    return 2;
  }
  if (mode != "functional" && mode != "timing") {
    fmt::print(stderr, "warpsim run: unknown mode '{}' (timing or functional)\n", mode);
    return 2;
  }
  runtime::GpuSpec spec;
  if (!check_gpu("warpsim run", gpu, overrides, spec)) return 2;
  // The program may change directory: hand the library an absolute path to a .toml file.
  if (gpu.find('/') != std::string::npos || (gpu.size() > 5 && gpu.compare(gpu.size() - 5, 5, ".toml") == 0)) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(gpu, ec);
    if (!ec) gpu = abs.string();
  }
  if (!report.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(report, ec);
    if (ec || !std::filesystem::is_directory(report)) {
      fmt::print(stderr, "warpsim run: cannot create report folder '{}': {}\n", report, ec.message());
      return 2;
    }
    const auto sim = std::filesystem::absolute(std::filesystem::path(report) / ".simulation.json");
    std::filesystem::remove(sim, ec);
    setenv("WARPSIM_REPORT_SIM", sim.c_str(), 1);
  }
  // nvcc links the static CUDA runtime unless told otherwise; that runtime reaches the simulator
  // through our libcuda.so.1 (the driver API), the shared one through our libcudart.so. The
  // summary and the report say which.
  if (const std::string exe = cli::resolve_program(argv[0]); !exe.empty()) {
    const auto link = cli::inspect_program(exe);
    if (link == cli::CudaRuntimeLink::static_runtime) setenv("WARPSIM_PROGRAM_RUNTIME", "static", 1);
    else if (link == cli::CudaRuntimeLink::shared) setenv("WARPSIM_PROGRAM_RUNTIME", "shared", 1);
  }
  const std::string libdir = find_cudart_dir();
  if (libdir.empty()) {
    fmt::print(stderr, "warpsim run: cannot find libcudart.so.13 next to the warpsim executable (build target 'cudart')\n");
    return 2;
  }
  std::string ld = libdir;
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  // Entry points of NVIDIA libraries that would hand the GPU SASS only (cuBLAS's GEMMs, NVRTC's
  // cubins; src/cudart/cublas_gemm.cpp, nvrtc_cubin.cpp); a program without them never calls these.
  if (const std::string preload = libdir + "/libwarpsim_preload.so"; access(preload.c_str(), R_OK) == 0) {
    std::string pre = preload;
    if (const char* old = std::getenv("LD_PRELOAD"); old && *old) pre += std::string(":") + old;
    setenv("LD_PRELOAD", pre.c_str(), 1);
  }
  setenv("WARPSIM_GPU", gpu.c_str(), 1);
  if (!overrides.empty()) {
    std::string set;
    for (auto& o : overrides) set += (set.empty() ? "" : "\n") + o;
    setenv("WARPSIM_SET", set.c_str(), 1);
  } else {
    unsetenv("WARPSIM_SET");
  }
  setenv("WARPSIM_MODE", mode.c_str(), 1);
  setenv("WARPSIM_CACHE_CONTROL", cache_control.c_str(), 1);
  if (quiet) setenv("WARPSIM_QUIET", "1", 1);
  set_malloc_tunables();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    fmt::print(stderr, "warpsim run: fork failed: {}\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    fmt::print(stderr, "warpsim run: cannot run '{}': {}\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 2;
  if (!report.empty())
    write_report(report, gpu, argv, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    fmt::print(stderr, "warpsim run: {} was killed by signal {} ({})\n", argv[0], WTERMSIG(status),
               strsignal(WTERMSIG(status)));
    return 128 + WTERMSIG(status);
  }
  return 2;
}

int list_gpus() {
  int rc = 0;
  for (auto& n : config::machine_names()) {
    config::Machine m;
    std::string error;
    if (!config::load_machine(n, {}, m, error)) {
      fmt::print(stderr, "warpsim gpus: {}\n", error);
      rc = 1;
      continue;
    }
    const std::string mem = m.global_mem_bytes >= (uint64_t(1) << 30) ? fmt::format("{} GB", m.global_mem_bytes >> 30)
                                                                       : fmt::format("{} MB", m.global_mem_bytes >> 20);
    fmt::print("{:<12} {} (compute capability {}.{}, {} SMs, {})\n", n, m.name, m.cc_major, m.cc_minor, m.sms, mem);
  }
  return rc;
}

int gpu_info(const std::string& name, const std::vector<std::string>& overrides) {
  runtime::GpuSpec g;
  if (!check_gpu("warpsim info", name, overrides, g)) return 2;
  fmt::print("{}", config::describe(g.machine));
  return 0;
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

  std::string run_gpu = "a100", run_mode = "timing";
  bool run_quiet = false;
  auto* run = app.add_subcommand("run", "Run an unmodified CUDA program (built with nvcc as usual) on the simulated GPU: "
                                        "warpsim run [options] -- PROGRAM ARGS...");
  run->add_option("--gpu", run_gpu, "GPU to simulate: a built-in name (`warpsim gpus`) or a machine .toml file");
  std::vector<std::string> run_set;
  run->add_option("--set", run_set, "Override a machine field, e.g. --set sm.scheduler=lrr (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--mode", run_mode,
                  "timing (default: the cycle-level model) or functional (the functional engine alone: fast, "
                  "no cycles)");
  run->add_flag("-q,--quiet", run_quiet, "No per-kernel summary at exit");
  std::string run_cache = "none";
  run->add_option("--cache-control", run_cache,
                  "all: flush the L2 (write back, invalidate) before every kernel, as Nsight Compute does by "
                  "default, so per-kernel cycles and DRAM traffic compare with ncu's; none (default): each kernel "
                  "finds the L2 as the last one left it, as on the GPU")
      ->check(CLI::IsMember({"all", "none"}));
  std::string run_report;
  run->add_option("--report", run_report, "Write DIR/report.json: per-kernel records, exit code, totals");
  uint64_t run_timeline = 0;
  run->add_option("--timeline", run_timeline,
                  "Sample the whole GPU every CYCLES cycles (IPC, resident warps, L1/L2/DRAM bandwidth) into the "
                  "report's \"timeline\" (needs --report, timing mode; scripts/timeline.py turns it into a "
                  "Perfetto/chrome://tracing trace or a plot)")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 40));
  std::vector<std::string> run_args;
  run->add_option("command", run_args, "PROGRAM ARGS... (after --)");
  run->prefix_command();

  auto* gpus = app.add_subcommand("gpus", "List the GPUs warpsim can simulate (the --gpu names)");
  std::string info_gpu = "a100";
  auto* info = app.add_subcommand("info", "Print a simulated GPU's parameters");
  info->add_option("--gpu", info_gpu, "GPU: a built-in name (see `warpsim gpus`) or a machine .toml file");
  std::vector<std::string> info_set;
  info->add_option("--set", info_set, "Override a machine field, e.g. --set ops.ld_global.latency=300 (repeatable)")
      ->allow_extra_args(false);

  CLI11_PARSE(app, argc, argv);

  if (gpus->parsed()) return list_gpus();
  if (info->parsed()) return gpu_info(info_gpu, info_set);

  if (run->parsed()) {
    auto rest = run->remaining();
    if (!rest.empty() && rest.front() == "--") rest.erase(rest.begin());
    run_args.insert(run_args.end(), rest.begin(), rest.end());
    if (run_timeline && run_report.empty()) {
      fmt::print(stderr, "warpsim run: --timeline needs --report DIR (the samples go into DIR/report.json)\n");
      return 2;
    }
    if (run_timeline && run_mode != "timing") {
      fmt::print(stderr, "warpsim run: --timeline needs the timing mode (the functional engine has no clock)\n");
      return 2;
    }
    if (run_timeline) setenv("WARPSIM_TIMELINE", std::to_string(run_timeline).c_str(), 1);
    else unsetenv("WARPSIM_TIMELINE");
    return run_program(run_gpu, run_set, run_mode, run_quiet, run_cache, run_report, run_args);
  }

  if (check->parsed()) return ptx_check(check_files, quiet);
  if (print->parsed()) return ptx_print(print_file, print_out);
  if (rt->parsed()) return ptx_roundtrip(rt_files);
  return 0;
}
