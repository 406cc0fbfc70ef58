#!/usr/bin/env python3
"""Write tests/data/redaction_corpus.jsonl: real-shaped secrets embedded in
realistic turns (each names its kind and the secret that must disappear)
and near-misses that must stay unchanged (kind null). Seeded, so the file
is reproducible: python3 scripts/gen-redaction-corpus.py > tests/data/redaction_corpus.jsonl
None of these secrets is real: they are random strings in the formats'
shapes."""
import base64, json, random, string

R = random.Random(16)
B62 = string.ascii_letters + string.digits
B64U = B62 + "-_"
B64 = B62 + "+/"
HEX = "0123456789abcdef"

def rnd(alpha, n):
    while True:
        s = "".join(R.choice(alpha) for _ in range(n))
        # real keys of these lengths hold letters and digits
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s

def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")

out = []
def pos(kind, secret, templates):
    for t in templates:
        out.append({"kind": kind, "secret": secret() if callable(secret) else secret, "template": t})

def neg(text):
    out.append({"kind": None, "text": text})

USER = [
    "my key is {s}, why does the API return 401?",
    "export VAR={s}\nthen run the script again",
    "here is the config:\n```\nkey: {s}\n```\ncan you check it?",
    "curl -s https://api.example.com -d '{{\"k\":\"{s}\"}}' fails with timeout",
    "I pasted {s} into .env by mistake, is it committed?",
    "Traceback (most recent call last):\n  File \"app.py\", line 3\nValueError: bad credential {s}",
]

pos("openai-key", lambda: "sk-" + rnd(B62, 48), USER)
pos("openai-key", lambda: "sk-proj-" + rnd(B64U, 124), USER)
pos("openai-key", lambda: "sk-svcacct-" + rnd(B64U, 80), USER[:3])
pos("openai-key", lambda: "sk-" + rnd(HEX, 32), USER[:3])
pos("anthropic-key", lambda: "sk-ant-api03-" + rnd(B64U, 93) + "AA", USER)
pos("github-token", lambda: "ghp_" + rnd(B62, 36), USER)
pos("github-token", lambda: "gho_" + rnd(B62, 36), USER[:3])
pos("github-token", lambda: "github_pat_" + rnd(B62, 22) + "_" + rnd(B62, 59), USER)
pos("gitlab-token", lambda: "glpat-" + rnd(B62 + "-_", 20), USER)
pos("slack-token", lambda: "xoxb-" + "".join(R.choice(string.digits) for _ in range(12)) + "-" + "".join(R.choice(string.digits) for _ in range(13)) + "-" + rnd(B62, 24), USER)
pos("slack-token", lambda: "xoxp-" + "".join(R.choice(string.digits) for _ in range(12)) + "-" + "".join(R.choice(string.digits) for _ in range(12)) + "-" + rnd(B62, 32), USER[:3])
pos("google-api-key", lambda: "AIza" + rnd(B64U, 35), USER)
pos("stripe-key", lambda: "sk_live_" + rnd(B62, 99), USER)
pos("stripe-key", lambda: "rk_live_" + rnd(B62, 24), USER[:3])
pos("aws-access-key-id", lambda: "AKIA" + rnd(string.ascii_uppercase + string.digits, 16), USER)
for _ in range(6):
    kid = "AKIA" + rnd(string.ascii_uppercase + string.digits, 16)
    sec = rnd(B64, 40)
    while not (any(c.isupper() for c in sec) and any(c.islower() for c in sec)):
        sec = rnd(B64, 40)
    for t in [
        "[default]\naws_access_key_id = " + kid + "\naws_secret_access_key = {s}\n",
        "AWS_ACCESS_KEY_ID=" + kid + " AWS_SECRET_ACCESS_KEY={s} aws s3 ls",
        "Access key ID,Secret access key\n" + kid + ",{s}\n",
    ]:
        out.append({"kind": "aws-secret-key", "secret": sec, "template": t, "also": [kid]})

def jwt():
    h = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    p = b64url(json.dumps({"sub": str(R.randrange(10**6)), "name": "Jane", "iat": 1700000000 + R.randrange(10**6)}).encode())
    return h + "." + p + "." + rnd(B64U, 43)
pos("jwt", jwt, USER)
pos("bearer-token", lambda: rnd(B62, 40), [
    "curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me",
    "GET /v1/items HTTP/1.1\nHost: api.example.com\nAuthorization: Bearer {s}\n",
    "requests.get(url, headers={{'Authorization': 'Bearer {s}'}})",
    "set the header to `Bearer {s}` and retry",
])

def pem(label):
    body = "\n".join(rnd(B64, 64) for _ in range(R.randrange(4, 9)))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"
for label in ["RSA PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "ENCRYPTED PRIVATE KEY"]:
    pos("private-key", lambda l=label: pem(l), ["here is id_rsa:\n{s}\nwhy does ssh say bad permissions?", "cat key.pem\n{s}\n$"])

def pw():
    return rnd(B62, R.randrange(10, 20)) + R.choice("!#%^*-_+")
for scheme, host in [("postgres", "db:5432/app"), ("postgresql", "10.0.0.5/prod"), ("mysql", "localhost:3306/shop"),
                     ("redis", "cache.internal:6379/0"), ("amqp", "rabbit:5672/"), ("mongodb+srv", "cluster0.abcde.mongodb.net/test"),
                     ("https", "git.example.com/org/repo.git")]:
    pos("url-password", pw, [f"DATABASE_URL={scheme}://admin:{{s}}@{host}", f"connect with {scheme}://svc_user:{{s}}@{host} and see"])
pos("url-password", "hunter2", ["postgres://admin:{s}@db:5432/app"])
pos("url-password", pw, ["redis://:{s}@cache:6379"])
pos("password", pw, [
    "DB_PASSWORD={s}",
    '{{"username": "admin", "password": "{s}"}}',
    "spring.datasource.password={s}",
    "password: {s}\nhost: db.internal",
    "mysql -u root --password={s} shop",
    "ADMIN_PASS = '{s}'".replace("ADMIN_PASS", "ADMIN_PASSWORD"),
])
pos("secret", lambda: rnd(B62, 32), [
    "SECRET_KEY={s}",
    "client_secret: {s}",
    'api_key = "{s}"',
    "JWT_SECRET={s}",
    '"access_token": "{s}",',
    "SENDGRID_API_KEY={s}",
    "export HF_TOKEN={s}",
    "webhook_secret => {s}",
])

# Near-misses: must come back unchanged.
for _ in range(12):
    sha = "".join(R.choice(HEX) for _ in range(40))
    neg(R.choice(["commit {x}\nAuthor: Jane <jane@example.com>", "git checkout {x}", "fixed in {x} (see the PR)", "HEAD is now at {x}"]).format(x=sha))
for _ in range(6):
    neg("git log --oneline\n" + "\n".join("".join(R.choice(HEX) for _ in range(7)) + " Fix typo" for _ in range(4)))
import uuid
for _ in range(12):
    u = str(uuid.UUID(int=R.getrandbits(128), version=4))
    neg(R.choice(["request id {x} failed with 500", '{{"id": "{x}", "status": "ok"}}', "session_id={x}", "trace {x} shows the slow span"]).format(x=u))
for _ in range(8):
    data = base64.b64encode(bytes(R.getrandbits(8) for _ in range(R.randrange(200, 900)))).decode()
    neg(R.choice(['<img src="data:image/png;base64,{x}">', "![chart](data:image/jpeg;base64,{x})", '{{"image": "{x}"}}']).format(x=data))
for t in [
    "use sklearn or sk-learn for that", "the key starts with sk- followed by random characters",
    "risk-assessment-framework-v2 is a library", "import sklearn.model_selection as sk_ms",
    "the sk-proj- prefix means a project key", "keys look like sk-... and ghp_...",
    "a desk-top-standing-converter-for-office-use", "sk-learn-compatible-estimator-wrapper-class",
    "Anthropic keys start with sk-ant-", "Stripe test mode uses sk_test_ keys",
    "GitHub tokens begin with ghp_ (classic) or github_pat_ (fine-grained)",
    "AWS access key ids start with AKIA", "a JWT looks like eyJhbGciOi... with three parts",
    "send the token in the Authorization: Bearer header", "Bearer authentication is defined in RFC 6750",
    "the password must be at least 12 characters", "password=${DB_PASSWORD}", "password: <your-password>",
    "PASSWORD=****", "password = os.environ['DB_PASSWORD']", "token = get_token(session)",
    'api_key=os.environ["OPENAI_API_KEY"]', "secret_name: prod-db-credentials", "token_count = 12345678",
    "max_tokens=4096", "password_hash = sha256(salt + password)", "api_key: ${OPENAI_API_KEY}",
    "SECRET_KEY = settings.SECRET_KEY", "token: {{ secrets.GITHUB_TOKEN }}", "password = changeme",
    "secret = None", "api_key = ''", "the access_key field is optional", "token=abc",
    "client_secret_path = /etc/app/secret.json",
    "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEexample1234567890abcdefABCDEF\n-----END PUBLIC KEY-----",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkSDR9vJrQmfzV0VqSgvPLxJm0k2KY3Q0bYpGh4QJTj jane@laptop",
    "ls ~/.ssh/id_rsa ~/.ssh/id_rsa.pub", "arn:aws:iam::123456789012:role/deploy",
    "docker pull nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
    "https://user@git.example.com/repo.git", "http://localhost:8080/api/v1/items", "git@github.com:org/repo.git",
    "ssh://git@host.example.com:22/srv/repo.git", "mailto:jane@example.com", "postgres://db:5432/app",
    "postgres://admin@db:5432/app", "redis://cache:6379/0", "postgres://user:${PGPASSWORD}@db/app",
    "postgres://user:<password>@db/app", "http://user:@host/", "version v1.2.3-rc.4+build.5",
    "com.example.token.TokenService handles refresh", "slack channel C024BE91L, user U0G9QF9C6",
    "xoxb- tokens are bot tokens", "set AIza... as the browser key",
    '"integrity": "sha512-KxAapq8xWq0yYrHOZk6F7M5Pt+pSwJyYlH4i0jFsIgUm4JZuuT9hjA1bhQR1Jv+2Yu5DtiKvvXt4Y53LiSbqQ=="',
    "the md5 is 9e107d9d372bb6826bd81d3542a419d6", "sha1sum: 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12",
    "npm ERR! code E401 Unable to authenticate, need: Bearer", "token expired at 2026-11-29T20:00:00Z",
    "the OAuth access token is valid for 3600 seconds", "set password_min_length: 12345678",
    "error: password authentication failed for user \"postgres\"",
    "kubectl get secret db-creds -o yaml", "SECRET_KEY_FILE=/run/secrets/django_key",
    "private_key_path: ~/.ssh/deploy_key", "access_key_id_env: AWS_ACCESS_KEY_ID",
    "the api_key_env setting names the variable", "Use `ragger forget --match TEXT` to remove turns",
    "const tokenizer = new Tokenizer(vocab)", "tokens: 1234, secret sauce: none",
    "passwd: files systemd", "password reset link sent to jane@example.com",
    "f7c3bc1d808e04732adf679965ccc34ca7ae3441 is the tree hash", "base64: SGVsbG8sIFdvcmxkIQ==",
    "uuidgen printed 123e4567-e89b-12d3-a456-426614174000", "AKIAEXAMPLE is not a valid id",
    "eyJhbGciOiJIUzI1NiJ9 is only the header", "numbers 1234567890123456789012345678901234567890",
]:
    neg(t)

lines = []
for c in out:
    if c["kind"] is None:
        lines.append({"kind": None, "text": c["text"], "secrets": []})
    else:
        s = c["secret"]
        lines.append({"kind": c["kind"], "text": c["template"].replace("{s}", s).replace("{{", "{").replace("}}", "}"), "secrets": [s] + c.get("also", [])})
for l in lines:
    print(json.dumps(l, ensure_ascii=False))
