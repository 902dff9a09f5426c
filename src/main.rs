//! The p3lab binary: parse the command line, set up logging, run, and pick the exit code.
#![forbid(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
use clap::Parser;
use p3lab::app::{self, exit, UserError};
use p3lab::cli::Cli;

fn main() {
    // `p3lab list ... | head`: a closed pipe ends the program quietly instead of panicking.
    std::panic::set_hook(Box::new(|info| {
        let msg = info.to_string();
        if msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        eprintln!("{msg}");
    }));
    // Help and errors as clap renders them, wrapped to the terminal (app/help.rs).
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let text = e.render().to_string();
            let text = app::help::wrap(&text, app::help::width());
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    print!("{text}");
                    std::process::exit(0)
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    eprint!("{text}");
                    std::process::exit(exit::BAD_INPUT)
                }
                _ => {
                    eprint!("{text}");
                    std::process::exit(e.exit_code())
                }
            }
        }
    };
    app::term::init(cli.verbose, cli.quiet, cli.color);
    let code = match app::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            let error = p3lab::output::ansi::paint(
                app::term::stderr_color(),
                p3lab::output::ansi::RED_BOLD,
                "error:",
            );
            if let Some(u) = e.downcast_ref::<UserError>() {
                eprintln!("{error} {u}");
                exit::BAD_INPUT
            } else {
                eprintln!("{error} {e:#}");
                exit::FAILURE
            }
        }
    };
    std::process::exit(code);
}
