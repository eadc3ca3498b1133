//! `calltape completions SHELL`: the shell's completion script for every
//! command and flag, printed on stdout to be saved where the shell looks.

use super::Outcome;

/// The flags of `calltape completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete in: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Prints the completion script of `command` (the binary's whole command
/// tree, which only the binary has) for the shell.
pub fn completions(args: CompletionsArgs, mut command: clap::Command) -> Outcome {
    let name = command.get_name().to_string();
    clap_complete::generate(args.shell, &mut command, name, &mut std::io::stdout().lock());
    Ok(())
}
