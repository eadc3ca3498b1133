//! BFCL's `TwitterAPI` (`posting_api.py`): one user's tweets, comments,
//! retweets and follows. Tweets are keyed by int ids (the configuration's
//! string keys made ints, as BFCL does on load); comments keep whatever key
//! the caller used, so a loaded `"0"` and a later `0` are two keys, as in
//! Python.

use crate::bfcl::multi_turn::pyops::{
    self, dict, error, get_any, increment, item, iterate, key_position, lower, no_attribute, plain_dict, set_item, truthy,
};
use crate::bfcl::multi_turn::{opt, req, ApiClass, Args, Attr, Method, PyError, SharedList};
use crate::bfcl::pyvalue::Py;

/// BFCL's `TwitterAPI`.
#[derive(Debug, Clone)]
pub struct TwitterAPI {
    username: Py,
    password: Py,
    authenticated: Py,
    /// Tweet id → tweet dict.
    tweets: Vec<(Py, Py)>,
    /// Tweet id → list of `{username, content}`.
    comments: Vec<(Py, Py)>,
    /// User name → list of retweeted ids.
    retweets: Vec<(Py, Py)>,
    following_list: Vec<Py>,
    tweet_counter: Py,
    /// `post_tweet`'s default `mentions=[]` is one list shared by every tweet
    /// posted without mentions: `mention` on one of them extends them all.
    /// Python makes it once per process, so the ground truth's instance
    /// shares it too (see [`ApiClass::shared_defaults`]).
    default_mentions: SharedList,
    /// The ids of the tweets holding that shared list.
    default_mention_holders: Vec<Py>,
}

impl Default for TwitterAPI {
    fn default() -> Self {
        let mut api = TwitterAPI {
            username: Py::None,
            password: Py::None,
            authenticated: Py::Bool(false),
            tweets: Vec::new(),
            comments: Vec::new(),
            retweets: Vec::new(),
            following_list: Vec::new(),
            tweet_counter: Py::Int(0),
            default_mentions: SharedList::default(),
            default_mention_holders: Vec::new(),
        };
        api.load(&Py::Dict(Vec::new()), false);
        api
    }
}

const METHODS: &[Method] = &[
    Method { name: "authenticate_twitter", params: &[req("username"), req("password")] },
    Method { name: "posting_get_login_status", params: &[] },
    Method { name: "post_tweet", params: &[req("content"), opt("tags"), opt("mentions")] },
    Method { name: "retweet", params: &[req("tweet_id")] },
    Method { name: "comment", params: &[req("tweet_id"), req("comment_content")] },
    Method { name: "mention", params: &[req("tweet_id"), req("mentioned_usernames")] },
    Method { name: "follow_user", params: &[req("username_to_follow")] },
    Method { name: "list_all_following", params: &[] },
    Method { name: "unfollow_user", params: &[req("username_to_unfollow")] },
    Method { name: "get_tweet", params: &[req("tweet_id")] },
    Method { name: "get_user_tweets", params: &[req("username")] },
    Method { name: "search_tweets", params: &[req("keyword")] },
    Method { name: "get_tweet_comments", params: &[req("tweet_id")] },
    Method { name: "get_user_stats", params: &[req("username")] },
];

fn not_authenticated(action: &str) -> Py {
    error(format!("User not authenticated. Please authenticate before {action}."))
}

fn tweet_not_found(tweet_id: &Py) -> Py {
    error(format!("Tweet with ID {} not found.", tweet_id.str_()))
}

/// A string-keyed configuration dict as a dict of any keys.
fn keyed(config: &Py, name: &str) -> Vec<(Py, Py)> {
    match config.get(name) {
        Some(Py::Dict(entries)) => entries.iter().map(|(k, v)| (Py::Str(k.clone()), v.clone())).collect(),
        _ => Vec::new(),
    }
}

/// `d[key] = value` in a dict of any keys.
fn insert(entries: &mut Vec<(Py, Py)>, key: Py, value: Py) -> Result<(), PyError> {
    match key_position(entries, &key)? {
        Some(i) => entries[i].1 = value,
        None => entries.push((key, value)),
    }
    Ok(())
}

/// `items.append(value)` on a value that should be a list.
fn append(items: &mut Py, value: Py) -> Result<(), PyError> {
    match items {
        Py::List(list) => {
            list.push(value);
            Ok(())
        }
        other => Err(no_attribute(other, "append")),
    }
}

fn lock(list: &SharedList) -> std::sync::MutexGuard<'_, Vec<Py>> {
    list.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl TwitterAPI {
    fn shared_mentions(&self) -> Vec<Py> {
        lock(&self.default_mentions).clone()
    }

    /// The tweets holding the shared default list show its items now (the
    /// other instance sharing it may have extended it since).
    fn sync_shared_mentions(&mut self) {
        if !self.default_mention_holders.is_empty() {
            self.tweets = self.tweets_now();
        }
    }

    /// The tweets, those holding the shared default list with its items now.
    fn tweets_now(&self) -> Vec<(Py, Py)> {
        let mut tweets = self.tweets.clone();
        if self.default_mention_holders.is_empty() {
            return tweets;
        }
        let shared = Py::List(self.shared_mentions());
        for (id, tweet) in &mut tweets {
            if id.py_in(&self.default_mention_holders) {
                // A holder is a tweet dict `post_tweet` made: it takes the item.
                let _ = set_item(tweet, "mentions", shared.clone());
            }
        }
        tweets
    }

    fn authenticate_twitter(&mut self, username: &Py, password: &Py) -> Py {
        if username.py_eq(&self.username) && password.py_eq(&self.password) {
            self.authenticated = Py::Bool(true);
            return dict(vec![("authentication_status", Py::Bool(true))]);
        }
        dict(vec![("authentication_status", Py::Bool(false))])
    }

    fn posting_get_login_status(&self) -> Py {
        dict(vec![("login_status", Py::Bool(truthy(&self.authenticated)))])
    }

    fn post_tweet(&mut self, content: &Py, tags: Option<&Py>, mentions: Option<&Py>) -> Result<Py, PyError> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("posting"));
        }
        let id = self.tweet_counter.clone();
        let tweet = dict(vec![
            ("id", id.clone()),
            ("username", self.username.clone()),
            ("content", content.clone()),
            ("tags", tags.cloned().unwrap_or(Py::List(Vec::new()))),
            ("mentions", mentions.cloned().unwrap_or_else(|| Py::List(self.shared_mentions()))),
        ]);
        insert(&mut self.tweets, id.clone(), tweet.clone())?;
        self.default_mention_holders.retain(|held| !held.py_eq(&id));
        if mentions.is_none() {
            self.default_mention_holders.push(id);
        }
        self.tweet_counter = increment(&self.tweet_counter)?;
        Ok(tweet)
    }

    fn retweet(&mut self, tweet_id: &Py) -> Result<Py, PyError> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("retweeting"));
        }
        if key_position(&self.tweets, tweet_id)?.is_none() {
            return Ok(tweet_not_found(tweet_id));
        }
        let at = match key_position(&self.retweets, &self.username)? {
            Some(at) => at,
            None => {
                self.retweets.push((self.username.clone(), Py::List(Vec::new())));
                self.retweets.len() - 1
            }
        };
        let retweeted = &mut self.retweets[at].1;
        if tweet_id.py_in(&iterate(retweeted)?) {
            return Ok(dict(vec![("retweet_status", Py::Str("Already retweeted".into()))]));
        }
        append(retweeted, tweet_id.clone())?;
        Ok(dict(vec![("retweet_status", Py::Str("Successfully retweeted".into()))]))
    }

    fn comment(&mut self, tweet_id: &Py, comment_content: &Py) -> Result<Py, PyError> {
        if !truthy(&self.authenticated) {
            return Ok(not_authenticated("commenting"));
        }
        if key_position(&self.tweets, tweet_id)?.is_none() {
            return Ok(tweet_not_found(tweet_id));
        }
        let at = match key_position(&self.comments, tweet_id)? {
            Some(at) => at,
            None => {
                self.comments.push((tweet_id.clone(), Py::List(Vec::new())));
                self.comments.len() - 1
            }
        };
        append(&mut self.comments[at].1, dict(vec![("username", self.username.clone()), ("content", comment_content.clone())]))?;
        Ok(dict(vec![("comment_status", Py::Str("Comment added successfully".into()))]))
    }

    fn mention(&mut self, tweet_id: &Py, mentioned_usernames: &Py) -> Result<Py, PyError> {
        let Some(at) = key_position(&self.tweets, tweet_id)? else {
            return Ok(tweet_not_found(tweet_id));
        };
        let key = self.tweets[at].0.clone();
        let mentions = item(&self.tweets[at].1, "mentions")?;
        if !matches!(mentions, Py::List(_)) {
            return Err(no_attribute(mentions, "extend"));
        }
        let added = iterate(mentioned_usernames)?;
        if key.py_in(&self.default_mention_holders) {
            lock(&self.default_mentions).extend(added);
            self.sync_shared_mentions();
        } else if let Py::Dict(entries) = &mut self.tweets[at].1 {
            if let Some((_, Py::List(list))) = entries.iter_mut().find(|(k, _)| k == "mentions") {
                list.extend(added);
            }
        }
        Ok(dict(vec![("mention_status", Py::Str("Users mentioned successfully".into()))]))
    }

    fn follow_user(&mut self, username_to_follow: &Py) -> Py {
        if !truthy(&self.authenticated) {
            return not_authenticated("following");
        }
        if username_to_follow.py_in(&self.following_list) {
            return dict(vec![("follow_status", Py::Bool(false))]);
        }
        self.following_list.push(username_to_follow.clone());
        dict(vec![("follow_status", Py::Bool(true))])
    }

    fn list_all_following(&self) -> Py {
        if !truthy(&self.authenticated) {
            return not_authenticated("listing following");
        }
        dict(vec![("following_list", Py::List(self.following_list.clone()))])
    }

    fn unfollow_user(&mut self, username_to_unfollow: &Py) -> Py {
        if !truthy(&self.authenticated) {
            return not_authenticated("unfollowing");
        }
        match self.following_list.iter().position(|u| u.py_eq(username_to_unfollow)) {
            None => dict(vec![("unfollow_status", Py::Bool(false))]),
            Some(i) => {
                self.following_list.remove(i);
                dict(vec![("unfollow_status", Py::Bool(true))])
            }
        }
    }

    fn get_tweet(&self, tweet_id: &Py) -> Result<Py, PyError> {
        Ok(get_any(&self.tweets, tweet_id)?.cloned().unwrap_or_else(|| tweet_not_found(tweet_id)))
    }

    /// The tweets whose `username` equals `username`.
    fn tweets_by(&self, username: &Py) -> Result<Vec<Py>, PyError> {
        let mut found = Vec::new();
        for (_, tweet) in &self.tweets {
            if item(tweet, "username")?.py_eq(username) {
                found.push(tweet.clone());
            }
        }
        Ok(found)
    }

    fn get_user_tweets(&self, username: &Py) -> Result<Py, PyError> {
        Ok(Py::List(self.tweets_by(username)?))
    }

    fn search_tweets(&self, keyword: &Py) -> Result<Py, PyError> {
        let mut found = Vec::new();
        for (_, tweet) in &self.tweets {
            let keyword = lower(keyword)?;
            let mut hit = lower(item(tweet, "content")?)?.contains(&keyword);
            if !hit {
                let tags = iterate(item(tweet, "tags")?)?.iter().map(lower).collect::<Result<Vec<_>, _>>()?;
                hit = tags.contains(&keyword);
            }
            if hit {
                found.push(tweet.clone());
            }
        }
        Ok(Py::List(found))
    }

    fn get_tweet_comments(&self, tweet_id: &Py) -> Result<Py, PyError> {
        if key_position(&self.tweets, tweet_id)?.is_none() {
            return Ok(tweet_not_found(tweet_id));
        }
        Ok(get_any(&self.comments, tweet_id)?.cloned().unwrap_or(Py::List(Vec::new())))
    }

    fn get_user_stats(&self, username: &Py) -> Result<Py, PyError> {
        let tweet_count = self.tweets_by(username)?.len();
        let following_count = if username.py_eq(&self.username) { self.following_list.len() } else { 0 };
        let retweet_count = match get_any(&self.retweets, username)? {
            Some(retweeted) => pyops::len(retweeted)?,
            None => 0,
        };
        Ok(dict(vec![
            ("tweet_count", Py::Int(tweet_count as i128)),
            ("following_count", Py::Int(following_count as i128)),
            ("retweet_count", Py::Int(retweet_count as i128)),
        ]))
    }
}

impl ApiClass for TwitterAPI {
    fn class_name(&self) -> &'static str {
        "TwitterAPI"
    }

    fn load(&mut self, config: &Py, _long_context: bool) {
        let or = |name: &str, default: Py| config.get(name).cloned().unwrap_or(default);
        self.username = or("username", Py::Str("john".into()));
        self.password = or("password", Py::Str("john123".into()));
        self.authenticated = or("authenticated", Py::Bool(false));
        self.tweets = match config.get("tweets") {
            // BFCL's `int(k)` of each key; one that is no int stays as written.
            Some(Py::Dict(entries)) => entries
                .iter()
                .map(|(k, v)| {
                    let key = Py::Str(k.clone());
                    (pyops::int(&key).unwrap_or(key), v.clone())
                })
                .collect(),
            _ => Vec::new(),
        };
        self.comments = keyed(config, "comments");
        self.retweets = keyed(config, "retweets");
        self.following_list = match config.get("following_list") {
            Some(Py::List(users)) => users.clone(),
            _ => vec![Py::Str("alice".into()), Py::Str("bob".into())],
        };
        self.tweet_counter = or("tweet_counter", Py::Int(0));
        self.default_mention_holders = Vec::new();
    }

    fn methods(&self) -> &'static [Method] {
        METHODS
    }

    fn call(&mut self, method: &str, args: &Args) -> Result<Py, PyError> {
        self.sync_shared_mentions();
        match method {
            "authenticate_twitter" => Ok(self.authenticate_twitter(args.arg("username"), args.arg("password"))),
            "posting_get_login_status" => Ok(self.posting_get_login_status()),
            "post_tweet" => self.post_tweet(args.arg("content"), args.get("tags"), args.get("mentions")),
            "retweet" => self.retweet(args.arg("tweet_id")),
            "comment" => self.comment(args.arg("tweet_id"), args.arg("comment_content")),
            "mention" => self.mention(args.arg("tweet_id"), args.arg("mentioned_usernames")),
            "follow_user" => Ok(self.follow_user(args.arg("username_to_follow"))),
            "list_all_following" => Ok(self.list_all_following()),
            "unfollow_user" => Ok(self.unfollow_user(args.arg("username_to_unfollow"))),
            "get_tweet" => self.get_tweet(args.arg("tweet_id")),
            "get_user_tweets" => self.get_user_tweets(args.arg("username")),
            "search_tweets" => self.search_tweets(args.arg("keyword")),
            "get_tweet_comments" => self.get_tweet_comments(args.arg("tweet_id")),
            "get_user_stats" => self.get_user_stats(args.arg("username")),
            _ => Err(format!("'TwitterAPI' object has no attribute '{method}'")),
        }
    }

    fn shared_defaults(&self) -> Option<SharedList> {
        Some(self.default_mentions.clone())
    }

    fn adopt_defaults(&mut self, shared: SharedList) {
        self.default_mentions = shared;
        self.sync_shared_mentions();
    }

    fn attrs(&self) -> Vec<(&'static str, Attr<'_>)> {
        vec![
            ("username", Attr::Py(&self.username)),
            ("password", Attr::Py(&self.password)),
            ("authenticated", Attr::Py(&self.authenticated)),
            ("tweets", Attr::Made(plain_dict(&self.tweets_now()))),
            ("comments", Attr::Made(plain_dict(&self.comments))),
            ("retweets", Attr::Made(plain_dict(&self.retweets))),
            ("following_list", Attr::List(&self.following_list)),
            ("tweet_counter", Attr::Py(&self.tweet_counter)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(api: &mut TwitterAPI, method: &str, args: &[(&str, Py)]) -> Result<Py, PyError> {
        api.call(method, &Args(args.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()))
    }

    fn text(result: Result<Py, PyError>) -> String {
        crate::bfcl::multi_turn::result_text(&result.expect("call succeeds"))
    }

    fn s(text: &str) -> Py {
        Py::Str(text.to_string())
    }

    fn list(items: &[&str]) -> Py {
        Py::List(items.iter().map(|i| s(i)).collect())
    }

    fn state_of(api: &TwitterAPI, attr: &str) -> String {
        api.state().into_iter().find(|(k, _)| k == attr).map(|(_, v)| v.json_dumps()).expect("attribute present")
    }

    fn logged_in() -> TwitterAPI {
        let config: Py = serde_json::from_str(
            r##"{"authenticated": true, "tweet_counter": 2, "tweets": {"0": {"id": 0, "username": "john", "content": "Hello World", "tags": ["#Hi"], "mentions": []}, "1": {"id": 1, "username": "ann", "content": "Road trip", "tags": ["#Travel"], "mentions": ["@john"]}}, "comments": {"0": [{"username": "ann", "content": "hey"}]}}"##,
        )
        .unwrap();
        let mut api = TwitterAPI::default();
        api.load(&config, false);
        api
    }

    #[test]
    fn a_tuple_of_tags_stays_a_tuple_in_the_tweet() {
        // Python: post_tweet(content='x', tags=('#a',)) stores the tuple, so the
        // tweet is not equal to one with tags=['#a'] (('#a',) != ['#a']), its
        // json.dumps still writes ["#a"], and mention() on a tuple of mentions
        // fails: 'tuple' object has no attribute 'extend'.
        let mut api = logged_in();
        let posted =
            call(&mut api, "post_tweet", &[("content", s("x")), ("tags", Py::Tuple(vec![s("#a")])), ("mentions", Py::Tuple(vec![]))]);
        assert_eq!(text(posted), r##"{"id": 2, "username": "john", "content": "x", "tags": ["#a"], "mentions": []}"##);
        let mut as_list = logged_in();
        call(&mut as_list, "post_tweet", &[("content", s("x")), ("tags", list(&["#a"])), ("mentions", list(&[]))]).unwrap();
        let tweets = |api: &TwitterAPI| api.state().into_iter().find(|(k, _)| k == "tweets").unwrap().1;
        assert!(!tweets(&api).py_eq(&tweets(&as_list)));
        let err = call(&mut api, "mention", &[("tweet_id", Py::Int(2)), ("mentioned_usernames", list(&["@b"]))]).unwrap_err();
        assert_eq!(err, "'tuple' object has no attribute 'extend'");
    }

    #[test]
    fn authenticate_and_post() {
        let mut api = TwitterAPI::default();
        assert_eq!(
            text(call(&mut api, "post_tweet", &[("content", s("hi"))])),
            r##"{"error": "User not authenticated. Please authenticate before posting."}"##
        );
        assert_eq!(
            text(call(&mut api, "authenticate_twitter", &[("username", s("john")), ("password", s("x"))])),
            r##"{"authentication_status": false}"##
        );
        assert_eq!(
            text(call(&mut api, "authenticate_twitter", &[("username", s("john")), ("password", s("john123"))])),
            r##"{"authentication_status": true}"##
        );
        assert_eq!(text(call(&mut api, "posting_get_login_status", &[])), r##"{"login_status": true}"##);
        assert_eq!(
            text(call(&mut api, "post_tweet", &[("content", s("hi")), ("tags", list(&["#a"]))])),
            r##"{"id": 0, "username": "john", "content": "hi", "tags": ["#a"], "mentions": []}"##
        );
        assert_eq!(state_of(&api, "tweets"), r##"{"0": {"id": 0, "username": "john", "content": "hi", "tags": ["#a"], "mentions": []}}"##);
        assert_eq!(state_of(&api, "tweet_counter"), "1");
    }

    #[test]
    fn retweet_comment_and_lookups() {
        let mut api = logged_in();
        assert_eq!(text(call(&mut api, "retweet", &[("tweet_id", Py::Int(1))])), r##"{"retweet_status": "Successfully retweeted"}"##);
        assert_eq!(text(call(&mut api, "retweet", &[("tweet_id", Py::Int(1))])), r##"{"retweet_status": "Already retweeted"}"##);
        assert_eq!(text(call(&mut api, "retweet", &[("tweet_id", Py::Int(7))])), r##"{"error": "Tweet with ID 7 not found."}"##);
        assert_eq!(state_of(&api, "retweets"), r##"{"john": [1]}"##);
        // Loaded comments keep their string key: `0` is a new key, written "0" again.
        assert_eq!(text(call(&mut api, "get_tweet_comments", &[("tweet_id", Py::Int(0))])), "[]");
        assert_eq!(
            text(call(&mut api, "comment", &[("tweet_id", Py::Int(0)), ("comment_content", s("yo"))])),
            r##"{"comment_status": "Comment added successfully"}"##
        );
        assert_eq!(state_of(&api, "comments"), r##"{"0": [{"username": "john", "content": "yo"}]}"##);
        assert_eq!(text(call(&mut api, "get_tweet_comments", &[("tweet_id", Py::Int(0))])), "[{'username': 'john', 'content': 'yo'}]");
        assert_eq!(
            text(call(&mut api, "get_user_tweets", &[("username", s("ann"))])),
            "[{'id': 1, 'username': 'ann', 'content': 'Road trip', 'tags': ['#Travel'], 'mentions': ['@john']}]"
        );
        assert_eq!(
            text(call(&mut api, "get_tweet", &[("tweet_id", Py::Float(1.0))])),
            r##"{"id": 1, "username": "ann", "content": "Road trip", "tags": ["#Travel"], "mentions": ["@john"]}"##
        );
        assert_eq!(
            text(call(&mut api, "get_user_stats", &[("username", s("john"))])),
            r##"{"tweet_count": 1, "following_count": 2, "retweet_count": 1}"##
        );
        assert_eq!(call(&mut api, "get_tweet", &[("tweet_id", list(&[]))]).unwrap_err(), "unhashable type: 'list'");
    }

    #[test]
    fn search_follow_and_mention() {
        let mut api = logged_in();
        assert_eq!(text(call(&mut api, "search_tweets", &[("keyword", s("#travel"))])).matches("'id'").count(), 1);
        assert_eq!(text(call(&mut api, "search_tweets", &[("keyword", s("o"))])).matches("'id'").count(), 2);
        assert_eq!(call(&mut api, "search_tweets", &[("keyword", Py::Int(1))]).unwrap_err(), "'int' object has no attribute 'lower'");
        assert_eq!(text(call(&mut api, "follow_user", &[("username_to_follow", s("bob"))])), r##"{"follow_status": false}"##);
        assert_eq!(text(call(&mut api, "follow_user", &[("username_to_follow", s("cy"))])), r##"{"follow_status": true}"##);
        assert_eq!(text(call(&mut api, "unfollow_user", &[("username_to_unfollow", s("alice"))])), r##"{"unfollow_status": true}"##);
        assert_eq!(text(call(&mut api, "list_all_following", &[])), r##"{"following_list": ["bob", "cy"]}"##);
        assert_eq!(
            text(call(&mut api, "mention", &[("tweet_id", Py::Int(0)), ("mentioned_usernames", list(&["@a"]))])),
            r##"{"mention_status": "Users mentioned successfully"}"##
        );
        assert_eq!(
            call(&mut api, "mention", &[("tweet_id", Py::Int(0)), ("mentioned_usernames", Py::Int(3))]).unwrap_err(),
            "'int' object is not iterable"
        );
        assert!(state_of(&api, "tweets").contains(r##""mentions": ["@a"]"##));
    }

    #[test]
    fn tweets_posted_without_mentions_share_one_list() {
        // Python's mutable default: `mention` on one such tweet shows in the other.
        let mut api = logged_in();
        call(&mut api, "post_tweet", &[("content", s("a"))]).unwrap();
        call(&mut api, "post_tweet", &[("content", s("b"))]).unwrap();
        call(&mut api, "mention", &[("tweet_id", Py::Int(2)), ("mentioned_usernames", list(&["@x"]))]).unwrap();
        assert_eq!(
            text(call(&mut api, "get_tweet", &[("tweet_id", Py::Int(3))])),
            r##"{"id": 3, "username": "john", "content": "b", "tags": [], "mentions": ["@x"]}"##
        );
        assert_eq!(
            text(call(&mut api, "post_tweet", &[("content", s("c"))])),
            r##"{"id": 4, "username": "john", "content": "c", "tags": [], "mentions": ["@x"]}"##
        );
    }
}
