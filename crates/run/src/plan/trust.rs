//! Where a plan sends requests and keys. A run folder may come from
//! someone else (a CI artifact, a colleague's copy); its `plan.json` must not
//! be able to send the user's API key to a server of its choosing. So a plan
//! keeps no secrets (header values, URL passwords and query values are
//! redacted when it is saved), and on `--resume` its models' endpoints, key
//! variables and headers are compared with the user's own configuration:
//! any difference is shown and refused unless the user says to trust it.

use std::collections::BTreeSet;

use crate::config::{Config, ModelConfig};
use crate::core::modes::CassetteMode;
use crate::transport::scrub::UrlParts;

use super::RunPlan;

/// What a secret is replaced with in a saved plan.
pub const REDACTED: &str = "REDACTED";

/// Replaces what may be secret in a configuration about to be written:
/// every extra header's value, and the user-info and query values of every
/// base URL.
pub fn redact_secrets(config: &mut Config) {
    for model in &mut config.models {
        for value in model.headers.values_mut() {
            *value = REDACTED.into();
        }
        if let Some(url) = &mut model.base_url {
            *url = redact_url(url);
        }
    }
}

/// A URL with its user-info (`user:password@`), query values and fragment
/// replaced by [`REDACTED`]; the rest is kept as written (no normalising,
/// so the same URL always redacts the same way).
pub fn redact_url(url: &str) -> String {
    // Cut where the transport's scrubbing cuts (a `/` in a password included);
    // the plan's rule is stricter: every query value goes.
    let parts = UrlParts::split(url);
    let mut out = parts.scheme.to_string();
    if parts.user_info.is_some() {
        out.push_str(REDACTED);
        out.push('@');
    }
    out.push_str(parts.host_and_path);
    if let Some(query) = parts.query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) => format!("{key}={REDACTED}"),
                None => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    if parts.fragment.is_some() {
        out.push('#');
        out.push_str(REDACTED);
    }
    out
}

/// Where the plan's networked models would send requests and keys, where
/// that differs from the user's configuration `yours`: one line each.
pub fn differences(plan: &RunPlan, yours: &Config) -> Vec<String> {
    let shown = |url: &Option<String>| url.as_deref().map_or("(the provider's default)".to_string(), redact_url);
    let key = |m: &ModelConfig| m.api_key_env.clone().unwrap_or_else(|| "(none)".into());
    let mut out = Vec::new();
    // The configuration with the plan's `--mode`: the cassette mode each model would run in.
    let run = plan.effective_config();
    // Simulated and replayed models reach no network: only the others count.
    for m in plan.config.models.iter().filter(|m| run.reaches_provider(m)) {
        let Some(y) = yours.models.iter().find(|y| y.name == m.base_name()) else {
            let with_key = m.api_key_env.as_ref().map_or("with no key".to_string(), |k| format!("with the key in ${k}"));
            out.push(format!(
                "model {:?} is not in your configuration; the plan sends its requests to {} {with_key}",
                m.name,
                shown(&m.base_url)
            ));
            continue;
        };
        let mut differ = |field: &str, plan: String, yours: String| {
            if plan != yours {
                out.push(format!("model {:?}: {field} is {plan} in the plan, {yours} in your configuration", m.name));
            }
        };
        differ("provider", format!("{:?}", m.provider).to_lowercase(), format!("{:?}", y.provider).to_lowercase());
        differ("base_url", shown(&m.base_url), shown(&y.base_url));
        differ("api_key_env", key(m), key(y));
        let names = |model: &ModelConfig| model.headers.keys().map(|k| k.to_ascii_lowercase()).collect::<BTreeSet<_>>();
        let (ours, theirs) = (names(y), names(m));
        if ours != theirs {
            let list =
                |s: &BTreeSet<String>| if s.is_empty() { "none".to_string() } else { s.iter().cloned().collect::<Vec<_>>().join(", ") };
            differ("headers", list(&theirs), list(&ours));
        }
        for (name, value) in &m.headers {
            let yours = y.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v);
            if value != REDACTED && yours.is_some_and(|v| v != value) {
                out.push(format!("model {:?}: header {name} has another value in the plan than in your configuration", m.name));
            }
        }
    }
    let writes = plan.config.models.iter().any(|m| matches!(run.mode_for(m), CassetteMode::Record | CassetteMode::Auto));
    if writes && plan.config.cassettes.dir != yours.cassettes.dir {
        out.push(format!(
            "cassettes.dir is {} in the plan, {} in your configuration (recordings are written there)",
            plan.config.cassettes.dir.display(),
            yours.cassettes.dir.display()
        ));
    }
    out
}

/// Puts back what saving redacted, from the user's configuration: the base
/// URL and header values of each model of the same name. A header whose
/// value is still redacted (no such model or header in `yours`) is dropped
/// rather than sent as "REDACTED". Returns a note per thing dropped or left.
pub fn restore_secrets(config: &mut Config, yours: &Config) -> Vec<String> {
    let mut notes = Vec::new();
    for m in &mut config.models {
        let y = yours.models.iter().find(|y| y.name == m.base_name());
        if let (Some(y), Some(url)) = (y, &m.base_url) {
            if y.base_url.as_deref().map(redact_url).as_deref() == Some(redact_url(url).as_str()) {
                m.base_url.clone_from(&y.base_url);
            }
        }
        if m.base_url.as_deref().is_some_and(|u| u.contains(REDACTED)) {
            notes.push(format!("model {:?}: base_url has redacted parts your configuration does not fill in", m.name));
        }
        let mut dropped = Vec::new();
        m.headers.retain(|name, value| {
            if value != REDACTED {
                return true;
            }
            match y.and_then(|y| y.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))) {
                Some((_, v)) => {
                    value.clone_from(v);
                    true
                }
                None => {
                    dropped.push(name.clone());
                    false
                }
            }
        });
        if !dropped.is_empty() {
            notes.push(format!(
                "model {:?}: header(s) {} not sent: their values are not in your configuration",
                m.name,
                dropped.join(", ")
            ));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_passwords_queries_and_fragments_only() {
        assert_eq!(redact_url("https://api.example.com/v1"), "https://api.example.com/v1");
        assert_eq!(redact_url("https://me:s3cret@h.example/v1?key=abc&x"), "https://REDACTED@h.example/v1?key=REDACTED&x");
        assert_eq!(redact_url("http://tok@h:8080"), "http://REDACTED@h:8080");
        assert_eq!(redact_url("https://h/p?api-version=1#frag"), "https://h/p?api-version=REDACTED#REDACTED");
        assert_eq!(redact_url("https://h/a@b"), "https://h/a@b", "an @ in the path is not user-info");
        assert_eq!(redact_url("https://me:pa/ss@h.example/v1"), "https://REDACTED@h.example/v1", "a / in a password hides none of it");
    }

    fn config(text: &str) -> Config {
        Config::parse(text, "t.toml").unwrap()
    }

    const MODEL: &str = "[[models]]\nname = \"gpt\"\nprovider = \"openai\"\nmodel_id = \"m\"\ntier = \"cheap\"\n";

    #[test]
    fn a_plan_differs_where_keys_would_go() {
        let yours = config(&format!(
            "{MODEL}base_url = \"https://api.openai.com/v1?k=1\"\napi_key_env = \"OPENAI_API_KEY\"\nheaders = {{ X-Title = \"t\" }}\n"
        ));
        let same = RunPlan::whole(yours.clone(), "x");
        assert_eq!(differences(&same, &yours), Vec::<String>::new());
        let mut saved = same.clone();
        redact_secrets(&mut saved.config);
        assert_eq!(differences(&saved, &yours), Vec::<String>::new(), "a redacted plan matches the config it came from");
        let notes = restore_secrets(&mut saved.config, &yours);
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(saved.config.models[0].base_url, yours.models[0].base_url);
        assert_eq!(saved.config.models[0].headers, yours.models[0].headers);

        let hostile =
            config(&format!("{MODEL}base_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"HOME\"\nheaders = {{ X-Leak = \"1\" }}\n"));
        let found = differences(&RunPlan::whole(hostile, "x"), &yours).join("\n");
        for what in ["base_url is http://127.0.0.1:9/v1", "api_key_env is HOME", "headers is x-leak"] {
            assert!(found.contains(what), "{what}: {found}");
        }
        let stranger = config(&MODEL.replace("\"gpt\"", "\"other\""));
        assert!(differences(&RunPlan::whole(stranger, "x"), &yours)[0].contains("not in your configuration"));
        // Replayed from cassettes only, a model sends nothing anywhere.
        let mut replayed = RunPlan::whole(config(&format!("{MODEL}base_url = \"http://evil/\"\n")), "x");
        replayed.mode = Some(CassetteMode::Replay);
        assert!(differences(&replayed, &yours).is_empty());
    }
}
