//! `calltape completions SHELL` prints a completion script that knows the
//! commands and their flags, for every shell clap_complete supports.

use std::process::{Command, Output};

use calltape::exit_codes;

fn calltape(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_calltape")).args(args).output().expect("binary runs")
}

#[test]
fn each_shell_gets_a_script_naming_the_commands_and_their_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = calltape(&["completions", shell]);
        assert_eq!(out.status.code(), Some(exit_codes::SUCCESS), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8(out.stdout).unwrap();
        for word in ["run", "filter", "compare", "completions"] {
            assert!(script.contains(word), "{shell}: no {word:?} in the script");
        }
    }
    let bash = String::from_utf8(calltape(&["completions", "bash"]).stdout).unwrap();
    assert!(bash.contains("--filter") && bash.contains("--trials") && bash.contains("calltape__subcmd__run)"), "{bash}");
}

#[test]
fn the_bash_script_loads_in_bash() {
    let bin = env!("CARGO_BIN_EXE_calltape");
    let out = Command::new("bash").arg("-c").arg(format!("source <('{bin}' completions bash) && complete -p calltape")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("calltape"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn an_unknown_shell_is_bad_input_listing_the_shells() {
    let out = calltape(&["completions", "tcsh"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(exit_codes::BAD_INPUT), "{stderr}");
    assert!(stderr.contains("bash") && stderr.contains("zsh") && stderr.contains("fish"), "{stderr}");
}
