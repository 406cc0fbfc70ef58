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

# Round 2 (issue 33): shapes that went through, and two false positives.
UPPER_DIGITS = string.ascii_uppercase + string.digits

def letters(n):
    while True:
        s = "".join(R.choice(string.ascii_letters) for _ in range(n))
        if any(c.isupper() for c in s) and any(c.islower() for c in s):
            return s

pos("password", pw, ['{{\\"username\\": \\"admin\\", \\"password\\": \\"{s}\\"}}',
                     'body = "{{\\"user\\":\\"svc\\",\\"password\\":\\"{s}\\"}}"'])
pos("secret", lambda: letters(32), ["export FOO_TOKEN={s}", "export GH_API_TOKEN={s}\nthen rerun"])
for phrase in ["CorrectHorseBatteryStaple", "PurpleMonkeyDishwasher", "TigerLampOrbitCanvas"]:
    pos("password", phrase, ["password: {s}", "DB_PASSWORD={s}"])
for _ in range(3):
    kid = "AKIA" + rnd(UPPER_DIGITS, 16)
    sec = rnd(B64, 40)
    while not (any(c.isupper() for c in sec) and any(c.islower() for c in sec)):
        sec = rnd(B64, 40)
    for t in [
        "Access key: " + kid + "\nSecret: {s}\n",
        kid + "\n{s}\n",
        "my key id is " + kid + ", region eu-west-1, and the secret key is {s} -- is that enough?",
        "[default]\naws_access_key_id=" + kid + "\nregion=us-east-1\noutput=json\nsecret = {s}\n",
    ]:
        out.append({"kind": "aws-secret-key", "secret": sec, "template": t, "also": [kid]})
pos("azure-storage-key", lambda: rnd(B64, 86) + "==", [
    "DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey={s};EndpointSuffix=core.windows.net",
    "Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={s}",
])
pos("azure-sas", lambda: rnd(B62, 43) + "%3D", [
    "https://shop.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-01T00:00:00Z&spr=https&sig={s}",
    "BlobEndpoint=https://shop.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig={s}",
])
pos("azure-client-secret", lambda: rnd(B62, 3) + R.choice(string.digits) + "Q~" + rnd(B62 + "_~.-", 34), [
    "az login --service-principal -u 0d1f0f7c-4a2e-4c3e-9a55-2a3c1b2d9e11 -p {s} --tenant 72f988bf-86f1-41af-91ab-2d7cd011db47",
    "AZURE_CLIENT_SECRET={s}",
])
pos("password", pw, [
    "az login -u jane@example.com -p {s}",
    "mysql -u root -p{s} shop",
    "mysqldump -h db -u backup -p'{s}' shop > dump.sql",
    "curl -u admin:{s} https://ci.example.com/api/json",
    "curl --user deploy:{s} -X POST https://registry.example.com/upload",
    "docker login -u ci -p {s} registry.example.com",
    "echo ok && docker login registry.gitlab.com --username bot --password {s}",
    "sshpass -p {s} ssh root@10.0.0.5",
    "sshpass -p'{s}' scp file host:",
])
pos("vault-token", lambda: "hvs." + rnd(B64U, 90), ["export VAULT_TOKEN={s}", "the root token is {s}, keep it safe"])
pos("npm-token", lambda: "npm_" + rnd(B62, 36), ["//registry.npmjs.org/:_authToken={s}", "I published with {s} yesterday"])
pos("pypi-token", lambda: "pypi-AgEIcHlwaS5vcmc" + rnd(B64U, 120), ["password = {s}", "twine upload -u __token__ -p {s} dist/*", "the token {s} was in the log"])
pos("huggingface-token", lambda: "hf_" + letters(34), ["HF_TOKEN={s}", "login with {s} then pull the model"])
pos("twilio-key", lambda: "SK" + rnd(HEX, 32), ["Twilio API key {s} and its secret", "client = Client('{s}', secret)"])
pos("sendgrid-key", lambda: "SG." + rnd(B64U, 22) + "." + rnd(B64U, 43), ["the SendGrid key {s} bounced", "sg = SendGridAPIClient('{s}')"])
pos("slack-webhook", lambda: "T" + rnd(UPPER_DIGITS, 8) + "/B" + rnd(UPPER_DIGITS, 10) + "/" + rnd(B62, 24), [
    "curl -X POST -d '{{\"text\":\"hi\"}}' https://hooks.slack.com/services/{s}",
    "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/{s}",
])
pos("discord-token", lambda: R.choice("MNO") + rnd(B62, 23) + "." + rnd(B64U, 6) + "." + rnd(B64U, 27), [
    "client.run('{s}')", "my bot token {s} stopped working",
])
pos("telegram-bot-token", lambda: str(R.randrange(10**8, 10**10)) + ":AA" + rnd(B64U, 33), [
    "https://api.telegram.org/bot{s}/getMe", "TELEGRAM_BOT={s}", "the bot answers with token {s}",
])
pos("webhook-secret", lambda: "whsec_" + rnd(B62, 32), ["STRIPE_WEBHOOK_SECRET={s}", "endpoint secret is {s} per the dashboard"])
pos("digitalocean-token", lambda: "dop_v1_" + rnd(HEX, 64), ["I ran doctl auth init with dop_v1_ and then {s} worked", "token {s} expired"])

def env_b64():
    text = ("APP_ENV=production\nDB_PASSWORD=" + pw() + "\nSTRIPE_KEY=sk_live_" + rnd(B62, 40) + "\n").encode()
    enc = base64.b64encode(text).decode()
    return "\n".join(enc[i:i + 76] for i in range(0, len(enc), 76))
pos("base64-secret", env_b64, ["cat .env | base64\n{s}\n", "kubectl secret data:\n  env: {s}"])

for label in ["RSA PRIVATE KEY", "PRIVATE KEY"]:
    body = [rnd(B64, 64) for _ in range(5)]
    out.append({"kind": "private-key", "secret": "\n".join(body), "also": body,
                "template": "the middle of my key:\n{s}\n-----END " + label + "-----\n"})

for _ in range(2):
    key = "ghp_" + rnd(B62, 36)
    cut = R.randrange(8, 30)
    out.append({"kind": "github-token", "secret": key[cut:], "also": [key[:cut] + key[cut:cut + 4]],
                "template": "my token is " + key[:cut] + "\u200b{s} (pasted from the wiki)"})
key = "sk-proj-" + rnd(B64U, 60)
out.append({"kind": "openai-key", "secret": key[20:], "also": [],
            "template": "OPENAI_API_KEY=" + key[:20] + "\u200d{s}"})

for t in [
    "token: MyClass2Handler", "handler_token: RequestTokenValidator", "secret_store: VaultSecretStore2",
    "AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "the AWS docs use wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as the secret",
    "export FOO_TOKEN_FILE=/run/secrets/token", "password: PasswordField", "password: Required",
    "mysql -u root -p shop", "mysql -p", "curl -u admin https://ci.example.com", "docker login -u ci --password-stdin registry.example.com",
    "sshpass -p \"$SSHPASS\" ssh host", "mysql -u root -p$MYSQL_PWD shop", "curl -u \"$USER:$PASS\" https://x.example.com",
    "use the sig= parameter of the SAS URL", "AccountKey=<your-account-key>", "hf_hub_download(repo_id='org/model', filename='x')",
    "the webhook secret starts with whsec_", "dop_v1_ tokens belong to DigitalOcean", "SKIP_TESTS=1 SKU=AB-1234",
    "echo SGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0IG9mIGJhc2U2NAo= | base64 -d",
    "a zero\u200bwidth space between words", "npm_config_cache=/tmp/npm", "pypi-simple is an index",
    "hooks.slack.com/services is where webhooks live", "https://discord.com/api/webhooks/ is the base",
    "bot ids look like 123456789:AA followed by letters", "SG.example is not a key",
    "hvs. is the prefix of Vault service tokens", "version 1.2.3 of Module.function_name.attribute",
    "MTIzNDU2 is base64 for 123456", "the az login command takes -p for a password",
    "-----END PUBLIC KEY-----", "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
    "camelCaseTokenValue: someHandlerName", "api_key_header: X-Api-Key",
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
