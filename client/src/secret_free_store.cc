#include "secret_free_store.h"

#include <vector>

namespace cfx {
namespace client {
namespace {

// Forwards to the FileStore it owns; `set` writes the message without its secrets.
class SecretFreeStore : public FIX::MessageStore {
 public:
  SecretFreeStore(FIX::MessageStoreFactory* files, FIX::MessageStore* inner)
      : files_(files), inner_(inner) {}
  ~SecretFreeStore() override { files_->destroy(inner_); }

  bool set(int seq, const std::string& message) throw(FIX::IOException) override {
    return inner_->set(seq, WithoutSecrets(message));
  }
  void get(int begin, int end, std::vector<std::string>& out) const
      throw(FIX::IOException) override {
    inner_->get(begin, end, out);
  }
  int getNextSenderMsgSeqNum() const throw(FIX::IOException) override {
    return inner_->getNextSenderMsgSeqNum();
  }
  int getNextTargetMsgSeqNum() const throw(FIX::IOException) override {
    return inner_->getNextTargetMsgSeqNum();
  }
  void setNextSenderMsgSeqNum(int value) throw(FIX::IOException) override {
    inner_->setNextSenderMsgSeqNum(value);
  }
  void setNextTargetMsgSeqNum(int value) throw(FIX::IOException) override {
    inner_->setNextTargetMsgSeqNum(value);
  }
  void incrNextSenderMsgSeqNum() throw(FIX::IOException) override {
    inner_->incrNextSenderMsgSeqNum();
  }
  void incrNextTargetMsgSeqNum() throw(FIX::IOException) override {
    inner_->incrNextTargetMsgSeqNum();
  }
  FIX::UtcTimeStamp getCreationTime() const throw(FIX::IOException) override {
    return inner_->getCreationTime();
  }
  void reset() throw(FIX::IOException) override { inner_->reset(); }
  void refresh() throw(FIX::IOException) override { inner_->refresh(); }

 private:
  FIX::MessageStoreFactory* files_;
  FIX::MessageStore* inner_;
};

}  // namespace

std::string WithoutSecrets(const std::string& message) {
  std::string out = message;
  for (const char* tag : {"\001554=", "\001925="}) {
    const std::string needle(tag);
    for (size_t at = out.find(needle); at != std::string::npos; at = out.find(needle, at + 1)) {
      const size_t value = at + needle.size();
      const size_t end = out.find('\001', value);
      for (size_t i = value; i < (end == std::string::npos ? out.size() : end); ++i) out[i] = '*';
    }
  }
  return out;
}

FIX::MessageStore* SecretFreeStoreFactory::create(const FIX::SessionID& id) {
  return new SecretFreeStore(&files_, files_.create(id));
}

void SecretFreeStoreFactory::destroy(FIX::MessageStore* store) { delete store; }

}  // namespace client
}  // namespace cfx
