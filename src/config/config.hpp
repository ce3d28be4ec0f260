// Loading machine descriptions (configs/*.toml, embedded in the library at build time), with
// inheritance (`inherits = "a100"`), command-line overrides (`--set sm.scheduler=lrr`) and
// validation. Every field of Machine is required; unknown keys are errors; every error names the
// field and the file (or the override) it came from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/machine.hpp"

namespace warpsim::config {

// Loads a built-in machine by name ("a100", "a100-80gb", "ga100-full", "v100", "g80", "h100"; ""
// means "a100") or a .toml file by path (anything ending in ".toml" or containing '/'). `overrides`
// are "dotted.key=value" strings applied after inheritance and before validation; the value is a
// TOML value (`5`, `1.5`, `[0, 8]`, `"lrr"`) or a bare word taken as a string (`lrr`). On failure
// returns false and sets `error` to one line naming the file and the field.
bool load_machine(const std::string& name_or_path, const std::vector<std::string>& overrides, Machine& out,
                  std::string& error);

// Loads a machine from TOML text (`source` names it in messages; `base_dir` resolves an `inherits`
// path). For tests and the fuzzer.
bool load_machine_text(std::string_view text, const std::string& source, const std::vector<std::string>& overrides,
                       Machine& out, std::string& error, const std::string& base_dir = ".");

// The built-in machine names, in a stable order ("a100" first).
std::vector<std::string> machine_names();

// The embedded TOML text of a built-in machine ("" if unknown).
std::string_view builtin_toml(const std::string& name);

// A readable multi-line description (`warpsim info`).
std::string describe(const Machine& m);

// Validation alone (load_machine runs it): false with `error` naming the first bad field.
bool validate(const Machine& m, std::string& error);

const char* scoreboard_name(Scoreboard s);        // "fixed", "short", "long"
const char* scheduler_name(SchedulerPolicy p);    // "gto", "lrr"
const char* issue_model_name(IssueModel m);       // "sub_core", "g80"

}  // namespace warpsim::config
