package config

import (
	"strings"
	"testing"
)

func TestModelServersUnsetIsTheOneOllama(t *testing.T) {
	c, err := Parse(env(map[string]string{"OLLAMA_HOST": "gpu-box", "LLM_CONCURRENCY": "3"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ModelServers) != 1 {
		t.Fatalf("servers = %+v, want the one of OLLAMA_HOST", c.ModelServers)
	}
	s := c.ModelServers[0]
	if s.Kind != KindOllama || s.URL.String() != "http://gpu-box:11434" || s.Slots != 3 || s.Name != "gpu-box:11434" {
		t.Errorf("server = %+v", s)
	}
}

func TestModelServersReadsEveryEntry(t *testing.T) {
	c, err := Parse(env(map[string]string{
		"MODEL_SERVERS": "ollama gpu1 slots=2 name=gpu1; openai https://gpu2.lan:8080/v1 key=GPU2_KEY\n  ollama http://10.0.0.3:11434  ",
		"GPU2_KEY":      "sk-secret",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind, url, keyVar, key, name string
		slots                        int
	}{
		{KindOllama, "http://gpu1:11434", "", "", "gpu1", 2},
		{KindOpenAI, "https://gpu2.lan:8080/v1", "GPU2_KEY", "sk-secret", "gpu2.lan:8080", 1},
		{KindOllama, "http://10.0.0.3:11434", "", "", "10.0.0.3:11434", 1},
	}
	if len(c.ModelServers) != len(want) {
		t.Fatalf("servers = %+v", c.ModelServers)
	}
	for i, w := range want {
		s := c.ModelServers[i]
		if s.Kind != w.kind || s.URL.String() != w.url || s.KeyVar != w.keyVar || s.Key != w.key || s.Name != w.name || s.Slots != w.slots {
			t.Errorf("server %d = %+v, want %+v", i+1, s, w)
		}
	}
	if strings.Contains(c.LogValue().String(), "sk-secret") {
		t.Error("the log shows a server's key")
	}
}

func TestModelServersRefusesAWrongEntryNamingIt(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        []string // in the error, besides MODEL_SERVERS
	}{
		{"unknown kind", "ollama http://a:1; vllm http://b:8000", []string{"entry 2", `vllm http://b:8000`, `unknown kind "vllm"`}},
		{"no URL", "openai", []string{"entry 1", "has no URL"}},
		{"bad URL", "openai ftp://b/v1", []string{"entry 1", "URL must be http(s)"}},
		{"bad Ollama URL", "ollama http://a:99999", []string{"entry 1", "invalid port"}},
		{"key variable unset", "openai http://b:8080/v1 key=NO_SUCH_KEY", []string{"entry 1", "key variable NO_SUCH_KEY, which is unset"}},
		{"slots zero", "ollama http://a:1 slots=0", []string{"entry 1", `slots must be a whole number from 1 to 64, got "0"`}},
		{"slots not a number", "ollama http://a:1 slots=two", []string{`got "two"`}},
		{"slots negative", "ollama http://a:1 slots=-1", []string{`got "-1"`}},
		{"unknown setting", "ollama http://a:1 gpu=3090", []string{`unknown setting "gpu"`}},
		{"bare word", "ollama http://a:1 fast", []string{`has "fast" where key=VAR`}},
		{"same name twice", "ollama http://a:1 name=gpu; ollama http://b:1 name=gpu", []string{"entry 2", `name "gpu" is already entry 1's`}},
		{"only separators", " ; ;", []string{"lists no server"}},
		{"password hidden", "vllm http://u:hunter2@b:8000", []string{"unknown kind"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(env(map[string]string{"MODEL_SERVERS": tc.value}))
			if err == nil {
				t.Fatalf("MODEL_SERVERS=%q accepted", tc.value)
			}
			msg := err.Error()
			for _, w := range append(tc.want, "MODEL_SERVERS") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("error %q shows a password", msg)
			}
		})
	}
}
